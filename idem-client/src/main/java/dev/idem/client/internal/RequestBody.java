package dev.idem.client.internal;

import java.io.ByteArrayOutputStream;
import java.net.http.HttpRequest;
import java.net.http.HttpRequest.BodyPublisher;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Flow;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Reads a request's body publisher once, so that every attempt sends the same bytes: a publisher
 * that can publish only once ({@code ofInputStream} over one stream) would otherwise send an empty
 * or different body on a retry, and an idempotent server would answer it with a mismatch, or run it.
 */
final class RequestBody {

    private RequestBody() {
    }

    /**
     * The bytes {@code publisher} publishes, at most {@code maxBytes}, read within {@code timeout}.
     *
     * @throws IllegalArgumentException the body is larger than {@code maxBytes}, or the publisher failed
     * @throws IllegalStateException    the publisher did not finish within {@code timeout}
     */
    static byte[] read(BodyPublisher publisher, int maxBytes, Duration timeout) throws InterruptedException {
        if (publisher.contentLength() > maxBytes) {
            throw tooLarge(maxBytes);
        }
        Collector collector = new Collector(maxBytes);
        publisher.subscribe(collector);
        try {
            return collector.result.get(Math.max(1, timeout.toMillis()), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof IllegalArgumentException tooLarge) {
                throw tooLarge;
            }
            throw new IllegalArgumentException("the request body publisher failed while its body was read: " + e.getCause(), e.getCause());
        } catch (TimeoutException e) {
            collector.cancel();
            throw new IllegalStateException("the request body publisher did not complete within " + timeout
                    + " (the logical request's deadline); its body is read once, before the first attempt");
        }
    }

    private static IllegalArgumentException tooLarge(int maxBytes) {
        return new IllegalArgumentException("the request body is larger than the " + maxBytes
                + " bytes the client reads to resend it identically on every attempt (IdempotentHttpClient.Builder.maxRequestBodyBytes)");
    }

    private static final class Collector implements Flow.Subscriber<ByteBuffer> {
        final CompletableFuture<byte[]> result = new CompletableFuture<>();
        private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        private final int maxBytes;
        private volatile Flow.Subscription subscription;

        Collector(int maxBytes) {
            this.maxBytes = maxBytes;
        }

        @Override
        public void onSubscribe(Flow.Subscription subscription) {
            this.subscription = subscription;
            subscription.request(Long.MAX_VALUE);
        }

        @Override
        public void onNext(ByteBuffer buffer) {
            if (result.isDone()) {
                return;
            }
            if ((long) bytes.size() + buffer.remaining() > maxBytes) {
                cancel();
                result.completeExceptionally(tooLarge(maxBytes));
                return;
            }
            byte[] chunk = new byte[buffer.remaining()];
            buffer.get(chunk);
            bytes.write(chunk, 0, chunk.length);
        }

        @Override
        public void onError(Throwable failure) {
            result.completeExceptionally(failure);
        }

        @Override
        public void onComplete() {
            result.complete(bytes.toByteArray());
        }

        void cancel() {
            Flow.Subscription s = subscription;
            if (s != null) {
                s.cancel();
            }
        }
    }

    /** A publisher of {@code body} for one attempt; any number of attempts may be made from the same bytes. */
    static BodyPublisher publisher(byte[] body) {
        return HttpRequest.BodyPublishers.ofByteArray(body);
    }
}
