package dev.idem.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.http.HttpResponse.BodyHandlers;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What only the async path has: waits go through {@link Sleeper#delayedExecutor} and never block a
 * thread, cancellation stops the retries, and a failing scheduler fails the future instead of
 * leaving it pending. Equivalence with the sync path is shown by the {@link Mode}-parameterized tests.
 */
class AsyncTest {
    private IdempotentTestServer server;

    @BeforeEach
    void start() throws IOException {
        server = IdempotentTestServer.start();
    }

    @AfterEach
    void stop() {
        server.close();
    }

    @Test
    void async_and_sync_give_the_same_outcome_for_the_same_script() throws Exception {
        FakeTime syncTime = new FakeTime();
        FakeTime asyncTime = new FakeTime();
        server.thenRespond(503, "Retry-After", "2").thenRespond(429, "Retry-After", "1");
        IdempotentResponse<String> sync = IdempotentHttpClient.builder(Http.CLIENT).sleeper(syncTime).clock(syncTime)
                .build().send(Http.post(server.uri("/payments")), BodyHandlers.ofString());
        server.thenRespond(503, "Retry-After", "2").thenRespond(429, "Retry-After", "1");
        IdempotentResponse<String> async = IdempotentHttpClient.builder(Http.CLIENT).sleeper(asyncTime).clock(asyncTime)
                .build().sendAsync(Http.post(server.uri("/payments")), BodyHandlers.ofString()).get(30, TimeUnit.SECONDS);

        assertThat(async.statusCode()).isEqualTo(sync.statusCode()).isEqualTo(201);
        assertThat(async.attempts()).isEqualTo(sync.attempts()).isEqualTo(3);
        assertThat(async.replayed()).isEqualTo(sync.replayed()).isFalse();
        assertThat(asyncTime.waits()).isEqualTo(syncTime.waits())
                .containsExactly(Duration.ofSeconds(2), Duration.ofSeconds(1));
        assertThat(syncTime.paths()).containsOnly("sleep");
        assertThat(asyncTime.paths()).containsOnly("delayedExecutor");
        assertThat(server.executions(sync.key().orElseThrow())).isEqualTo(1);
        assertThat(server.executions(async.key().orElseThrow())).isEqualTo(1);
    }

    @Test
    void the_async_path_never_calls_the_blocking_sleep() throws Exception {
        server.thenRespond(503).thenRespond(504);
        Sleeper noBlocking = new Sleeper() {
            @Override
            public void sleep(Duration duration) {
                throw new AssertionError("sendAsync must not block a thread to wait");
            }

            @Override
            public Executor delayedExecutor(Duration delay, Executor executor) {
                return executor; // no wait at all
            }
        };

        IdempotentResponse<String> response = IdempotentHttpClient.builder(Http.CLIENT).sleeper(noBlocking).build()
                .sendAsync(Http.post(server.uri("/payments")), BodyHandlers.ofString()).get(30, TimeUnit.SECONDS);

        assertThat(response.statusCode()).isEqualTo(201);
        assertThat(response.attempts()).isEqualTo(3);
    }

    @Test
    void the_default_sleeper_really_schedules_the_retry() throws Exception {
        server.thenRespond(503);

        IdempotentResponse<String> response = IdempotentHttpClient.builder(Http.CLIENT)
                .backoff(Duration.ofMillis(1), Duration.ofMillis(5)).build()
                .sendAsync(Http.post(server.uri("/payments")), BodyHandlers.ofString()).get(30, TimeUnit.SECONDS);

        assertThat(response.attempts()).isEqualTo(2);
        assertThat(server.keys()).hasSize(2).containsOnly(response.key().orElseThrow());
    }

    @Test
    void cancelling_the_future_stops_further_attempts() throws Exception {
        server.alwaysRespond(503);
        Deque<Runnable> pending = new ArrayDeque<>();
        CountDownLatch retryScheduled = new CountDownLatch(1);
        Sleeper manual = new Sleeper() {
            @Override
            public void sleep(Duration duration) {
                throw new AssertionError("not used by sendAsync");
            }

            @Override
            public Executor delayedExecutor(Duration delay, Executor executor) {
                return task -> {
                    synchronized (pending) {
                        pending.add(task);
                    }
                    retryScheduled.countDown();
                };
            }
        };
        CompletableFuture<IdempotentResponse<String>> future = IdempotentHttpClient.builder(Http.CLIENT)
                .sleeper(manual).build().sendAsync(Http.post(server.uri("/payments")), BodyHandlers.ofString());
        assertThat(retryScheduled.await(30, TimeUnit.SECONDS)).as("first retry scheduled").isTrue();

        future.cancel(true);
        Runnable retry;
        synchronized (pending) {
            retry = pending.poll();
        }
        retry.run(); // the timer fires after the cancellation

        assertThat(future).isCancelled();
        assertThat(server.requests()).isEqualTo(1);
    }

    @Test
    void a_scheduler_that_refuses_the_retry_fails_the_future() {
        server.alwaysRespond(503);
        Sleeper refusing = new Sleeper() {
            @Override
            public void sleep(Duration duration) {
                throw new AssertionError("not used by sendAsync");
            }

            @Override
            public Executor delayedExecutor(Duration delay, Executor executor) {
                return task -> {
                    throw new RejectedExecutionException("shut down");
                };
            }
        };

        CompletableFuture<IdempotentResponse<String>> future = IdempotentHttpClient.builder(Http.CLIENT)
                .sleeper(refusing).build().sendAsync(Http.post(server.uri("/payments")), BodyHandlers.ofString());

        assertThatThrownBy(() -> future.get(30, TimeUnit.SECONDS))
                .isInstanceOf(ExecutionException.class)
                .hasCauseInstanceOf(RejectedExecutionException.class);
    }

    @Test
    void a_failure_completes_the_future_with_the_same_exception_the_sync_path_throws() throws Exception {
        FakeTime time = new FakeTime();
        server.close(); // nobody listens any more
        IdempotentHttpClient client = IdempotentHttpClient.builder(Http.CLIENT).sleeper(time).clock(time)
                .maxAttempts(2).build();

        CompletableFuture<IdempotentResponse<String>> future =
                client.sendAsync(Http.post(server.uri("/payments")), BodyHandlers.ofString(), "k-async");

        assertThatThrownBy(() -> future.get(30, TimeUnit.SECONDS))
                .isInstanceOf(ExecutionException.class)
                .cause()
                .isInstanceOf(IdempotentRequestFailedException.class)
                .hasMessageContaining("2 attempts")
                .hasMessageNotContaining("k-async");
    }
}
