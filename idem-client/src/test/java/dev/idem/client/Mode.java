package dev.idem.client;

import java.net.http.HttpRequest;
import java.net.http.HttpResponse.BodyHandler;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Sync or async, behind one call, so a parameterized test shows both paths behave the same. The
 * async mode unwraps the future's failure to the exception the sync path would have thrown.
 */
enum Mode {
    SYNC {
        @Override
        <T> IdempotentResponse<T> send(IdempotentHttpClient client, HttpRequest request, BodyHandler<T> handler)
                throws InterruptedException {
            return client.send(request, handler);
        }

        @Override
        <T> IdempotentResponse<T> send(IdempotentHttpClient client, HttpRequest request, BodyHandler<T> handler,
                                       String key) throws InterruptedException {
            return client.send(request, handler, key);
        }
    },
    ASYNC {
        @Override
        <T> IdempotentResponse<T> send(IdempotentHttpClient client, HttpRequest request, BodyHandler<T> handler)
                throws InterruptedException {
            return await(client.sendAsync(request, handler));
        }

        @Override
        <T> IdempotentResponse<T> send(IdempotentHttpClient client, HttpRequest request, BodyHandler<T> handler,
                                       String key) throws InterruptedException {
            return await(client.sendAsync(request, handler, key));
        }
    };

    abstract <T> IdempotentResponse<T> send(IdempotentHttpClient client, HttpRequest request, BodyHandler<T> handler)
            throws InterruptedException;

    abstract <T> IdempotentResponse<T> send(IdempotentHttpClient client, HttpRequest request, BodyHandler<T> handler,
                                            String key) throws InterruptedException;

    static <T> T await(CompletableFuture<T> future) throws InterruptedException {
        try {
            return future.get(30, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RuntimeException runtime) {
                throw runtime;
            }
            throw new AssertionError("unexpected failure", e.getCause());
        } catch (TimeoutException e) {
            throw new AssertionError("the future did not complete in 30 s", e);
        }
    }
}
