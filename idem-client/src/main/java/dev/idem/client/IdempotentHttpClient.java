package dev.idem.client;

import dev.idem.client.RetryRules.Decision;
import dev.idem.client.RetryRules.GiveUp;
import dev.idem.client.RetryRules.Retry;
import dev.idem.client.internal.Keys;
import dev.idem.client.internal.LogicalRequest;
import dev.idem.client.internal.ProblemPeek;
import dev.idem.client.internal.RetryPolicy;
import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandler;
import java.time.Clock;
import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.atomic.AtomicReference;
import java.util.random.RandomGenerator;

/**
 * Sends HTTP requests through a {@link HttpClient} and retries them safely: every attempt of one
 * <em>logical</em> request carries the <em>same</em> idempotency key, so an idempotent server
 * (Stripe, idem's servlet filter) executes it once and replays the stored response to the repeats.
 * A new key per retry is the classic bug this class exists to prevent: when a response is lost on
 * the wire, the retry with a new key looks like a new payment.
 *
 * <pre>{@code
 * IdempotentHttpClient client = IdempotentHttpClient.builder(HttpClient.newHttpClient()).build();
 * IdempotentResponse<String> paid = client.send(
 *         HttpRequest.newBuilder(uri).POST(BodyPublishers.ofString(json)).build(), BodyHandlers.ofString());
 * }</pre>
 *
 * <h2>The key</h2>
 * One key per call of {@code send}/{@code sendAsync}:
 * <ol>
 *   <li>the {@code key} argument of {@link #send(HttpRequest, BodyHandler, String)}, or</li>
 *   <li>the key already in the request's idempotency header ({@code Idempotency-Key} by default), or</li>
 *   <li>for a method that is not idempotent (POST, PATCH, any but GET/HEAD/OPTIONS/PUT/DELETE/TRACE), a
 *       fresh UUIDv4 from {@link java.util.UUID#randomUUID()} (a {@link java.security.SecureRandom}),
 *       unless {@link Builder#generateKeys(boolean) generateKeys(false)};</li>
 *   <li>otherwise none: an idempotent method is safe to repeat without one.</li>
 * </ol>
 * A supplied key must be 1–255 visible ASCII characters and is sent verbatim; if the argument and
 * the header both hold one, they must be equal. A bad key throws {@link IllegalArgumentException}
 * whose message says which rule was broken, never the value. To survive a crash of the caller
 * itself, make the key when the user acts (presses "pay"), persist it, and pass it to every call for
 * that action: a key generated here lives only as long as this call.
 *
 * <h2>When it retries</h2>
 * After every answer that an idempotent server's contract makes safe to repeat with the same key, and
 * after an attempt that got no response. By default, following idem's filter (which stores none of
 * these answers, so a retry runs the request again or gets the stored result):
 * <ul>
 *   <li>every 5xx — the server failed or was unavailable (idem's filter answers a store failure 503
 *       {@code urn:idem:problem:store-unavailable}), and nothing was stored;</li>
 *   <li>408 Request Timeout, 425 Too Early and 429 Too Many Requests — "not now";</li>
 *   <li>409 Conflict <em>only</em> when it is the RFC 9457 problem {@code urn:idem:problem:key-in-use}
 *       (another request with the key is running; {@link Builder#inProgressProblemTypes}). Its
 *       {@code application/problem+json} body is read to tell; it still reaches the caller's
 *       {@code BodyHandler} in full. Any other 409 is a final answer;</li>
 *   <li>no response at all: any {@link IOException} from the {@code HttpClient} — connection refused,
 *       reset, {@link java.net.http.HttpTimeoutException}, the connection closed before or during the
 *       response.</li>
 * </ul>
 * Every other answer is final and returned at once: 2xx, 3xx, and the 4xx that answer the request
 * itself (400, 401, 403, 404, 422 {@code key-mismatch}, …). {@link Builder#retryStatuses} replaces the
 * status list. The wait is the server's {@code Retry-After} (delta-seconds or HTTP-date) when present,
 * else exponential backoff with full jitter: a random time in [0, min(cap, base·2^n)] before the
 * (n+1)-th retry.
 *
 * <p>Retries stop after {@link Builder#maxAttempts(int) maxAttempts} attempts, or when the next wait
 * would end at or past the {@link Builder#deadline(Duration) deadline} (measured from the call); the
 * client never sleeps past the deadline, and each attempt's timeout is cut to what remains of it.
 * A 409 {@code key-in-use} is different: the request is still running on the server (often an
 * earlier attempt of this very call that timed out), so the client keeps looking until the deadline,
 * and such answers do not count against {@code maxAttempts}. It waits the {@code Retry-After} (idem's
 * filter says 1 s) when that ends before the deadline, else a back-off bounded by its cap.
 * Then the last response is returned (its status may be retryable), or, if the last attempt got no
 * response, {@link IdempotentRequestFailedException} is thrown.
 *
 * <p><b>A request that is not idempotent and has no key is sent exactly once</b> — with
 * {@code generateKeys(false)} and no supplied key, a POST that fails with 503 or a reset connection
 * is not repeated, since the server might execute it twice. The response is returned, or the failure
 * thrown with {@link IdempotentRequestFailedException.Reason#NOT_RETRYABLE}.
 *
 * <h2>The request body</h2>
 * A request that may be retried has its body read once, when {@code send} is called (up to
 * {@link Builder#maxRequestBodyBytes}, 8 MiB by default; a larger one is refused before anything is
 * sent), and every attempt sends those same bytes: a retry is byte-identical to the first attempt even
 * with a publisher that can publish only once, such as an {@code ofInputStream} over one stream. The
 * body of a response that is retried is closed when its type is
 * {@link AutoCloseable} ({@code ofInputStream}, {@code ofLines}), so streaming handlers leak no
 * connection.
 *
 * <p>These decisions are {@link RetryRules}'s, which other idem clients (idem-webflux's WebClient filter) share.
 *
 * <p>Instances are immutable and thread-safe; share one per {@code HttpClient}.
 */
public final class IdempotentHttpClient {
    private final HttpClient http;
    private final RetryPolicy policy;
    private final Sleeper sleeper;

    private IdempotentHttpClient(HttpClient http, RetryPolicy policy, Sleeper sleeper) {
        this.http = http;
        this.policy = policy;
        this.sleeper = sleeper;
    }

    /** A builder over {@code http}, which does the actual sending (its executor, redirects, TLS, proxy). */
    public static Builder builder(HttpClient http) {
        return new Builder(Objects.requireNonNull(http, "http client is null"));
    }

    /**
     * Sends one logical request, retrying with one key as described in the class documentation.
     *
     * @throws IdempotentRequestFailedException no attempt got a response and no further attempt was allowed
     * @throws IllegalArgumentException the request's key header is malformed or repeated
     * @throws InterruptedException the calling thread was interrupted while sending or waiting
     */
    public <T> IdempotentResponse<T> send(HttpRequest request, BodyHandler<T> handler) throws InterruptedException {
        return run(policy.start(request, null), Objects.requireNonNull(handler, "handler is null"));
    }

    /**
     * Sends one logical request under the caller's {@code key}, used verbatim on every attempt. Use
     * this when the key was made (and stored) when the user acted, so a retry by the caller after a
     * crash or an {@link IdempotentRequestFailedException} is still the same logical request.
     *
     * @throws IllegalArgumentException {@code key} is not 1–255 visible ASCII characters, or the request
     *         carries a different key in its header
     */
    public <T> IdempotentResponse<T> send(HttpRequest request, BodyHandler<T> handler, String key)
            throws InterruptedException {
        Objects.requireNonNull(key, "key is null");
        return run(policy.start(request, key), Objects.requireNonNull(handler, "handler is null"));
    }

    /**
     * Like {@link #send(HttpRequest, BodyHandler)}, without blocking any thread: each retry is
     * scheduled on {@link Sleeper#delayedExecutor} over the {@code HttpClient}'s executor (or the
     * common pool). A malformed key throws here; sending failures complete the future exceptionally
     * with {@link IdempotentRequestFailedException}. Cancelling the future stops further attempts.
     */
    public <T> CompletableFuture<IdempotentResponse<T>> sendAsync(HttpRequest request, BodyHandler<T> handler) {
        return startAsync(request, null, Objects.requireNonNull(handler, "handler is null"));
    }

    /** Like {@link #send(HttpRequest, BodyHandler, String)}, asynchronously as {@link #sendAsync(HttpRequest, BodyHandler)}. */
    public <T> CompletableFuture<IdempotentResponse<T>> sendAsync(HttpRequest request, BodyHandler<T> handler,
                                                                   String key) {
        Objects.requireNonNull(key, "key is null");
        return startAsync(request, key, Objects.requireNonNull(handler, "handler is null"));
    }

    private <T> CompletableFuture<IdempotentResponse<T>> startAsync(HttpRequest request, String key, BodyHandler<T> handler) {
        LogicalRequest logical;
        try {
            logical = policy.start(request, key);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return CompletableFuture.failedFuture(e);
        }
        return runAsync(logical, handler);
    }

    /** The client that does the sending. */
    public HttpClient httpClient() {
        return http;
    }

    @Override
    public String toString() {
        return "IdempotentHttpClient[" + policy + ", sleeper=" + sleeper + "]";
    }

    private <T> IdempotentResponse<T> run(LogicalRequest logical, BodyHandler<T> handler) throws InterruptedException {
        while (true) {
            HttpResponse<T> response;
            Decision decision;
            try {
                ProblemPeek<T> peek = policy.readsConflictProblemTypes() ? new ProblemPeek<>(handler) : null;
                response = http.send(logical.nextAttempt(), peek == null ? handler : peek);
                decision = logical.onResponse(response.statusCode(), response.headers(), peek == null ? null : peek.type());
                if (decision instanceof GiveUp giveUp) {
                    closeQuietly(response.body());
                    throw failed(logical, giveUp, null);
                }
            } catch (IOException e) {
                response = null;
                decision = logical.onFailure(e);
                if (decision instanceof GiveUp giveUp) {
                    throw failed(logical, giveUp, e);
                }
            }
            if (decision instanceof Retry retry) {
                if (response != null) {
                    closeQuietly(response.body());
                }
                sleeper.sleep(retry.delay());
            } else {
                return new IdempotentResponse<>(response, logical.attempts(), logical.key());
            }
        }
    }

    private <T> CompletableFuture<IdempotentResponse<T>> runAsync(LogicalRequest logical, BodyHandler<T> handler) {
        CompletableFuture<IdempotentResponse<T>> result = new CompletableFuture<>();
        AtomicReference<CompletableFuture<?>> inFlight = new AtomicReference<>();
        // Cancelling the caller's future cancels the attempt in flight; attempt() sees isDone() and stops.
        result.whenComplete((r, e) -> {
            CompletableFuture<?> current = inFlight.get();
            if (result.isCancelled() && current != null) {
                current.cancel(true);
            }
        });
        attempt(logical, handler, result, inFlight);
        return result;
    }

    private <T> void attempt(LogicalRequest logical, BodyHandler<T> handler,
                             CompletableFuture<IdempotentResponse<T>> result,
                             AtomicReference<CompletableFuture<?>> inFlight) {
        if (result.isDone()) {
            return;
        }
        CompletableFuture<HttpResponse<T>> sending;
        ProblemPeek<T> peek = policy.readsConflictProblemTypes() ? new ProblemPeek<>(handler) : null;
        try {
            sending = http.sendAsync(logical.nextAttempt(), peek == null ? handler : peek);
        } catch (RuntimeException e) {
            result.completeExceptionally(e);
            return;
        }
        inFlight.set(sending);
        sending.whenComplete((response, error) -> {
            try {
                Decision decision;
                if (error != null) {
                    Throwable cause = unwrap(error);
                    if (!(cause instanceof IOException io)) {
                        result.completeExceptionally(cause);
                        return;
                    }
                    decision = logical.onFailure(io);
                    if (decision instanceof GiveUp giveUp) {
                        result.completeExceptionally(failed(logical, giveUp, io));
                        return;
                    }
                } else {
                    decision = logical.onResponse(response.statusCode(), response.headers(), peek == null ? null : peek.type());
                    if (decision instanceof GiveUp giveUp) {
                        closeQuietly(response.body());
                        result.completeExceptionally(failed(logical, giveUp, null));
                        return;
                    }
                }
                if (decision instanceof Retry retry) {
                    if (response != null) {
                        closeQuietly(response.body());
                    }
                    sleeper.delayedExecutor(retry.delay(), executor())
                            .execute(() -> attempt(logical, handler, result, inFlight));
                } else {
                    result.complete(new IdempotentResponse<>(response, logical.attempts(), logical.key()));
                }
            } catch (Throwable t) { // a rejected executor, a failing sleeper: never leave the caller's future hanging
                result.completeExceptionally(t);
            }
        });
    }

    private Executor executor() {
        return http.executor().orElseGet(ForkJoinPool::commonPool);
    }

    private static Throwable unwrap(Throwable error) {
        Throwable t = error;
        while ((t instanceof CompletionException || t instanceof ExecutionException) && t.getCause() != null) {
            t = t.getCause();
        }
        return t;
    }

    private static IdempotentRequestFailedException failed(LogicalRequest logical, GiveUp giveUp, Throwable cause) {
        return logical.failure(giveUp, cause);
    }

    // A streaming body of a response we discard holds a connection until closed.
    private static void closeQuietly(Object body) {
        if (body instanceof AutoCloseable closeable) {
            try {
                closeable.close();
            } catch (Exception ignored) {
                // The response is discarded anyway; a failing close must not stop the retry.
            }
        }
    }

    /**
     * Validates each setting as it is set, naming the bad value; {@link #build()} returns an
     * immutable client, and later changes to the builder do not affect it.
     */
    public static final class Builder {
        /** 8 MiB: eight times idem's filter's default request cap. */
        private static final int DEFAULT_MAX_REQUEST_BODY_BYTES = 8 * 1024 * 1024;

        private final HttpClient http;
        /** The retry decisions; their setters below delegate to it, so both validate alike. */
        private final RetryRules.Builder rules = RetryRules.builder();
        private String headerName = "Idempotency-Key";
        private Duration attemptTimeout;
        private Sleeper sleeper = Sleeper.system();
        private boolean generateKeys = true;
        private int maxRequestBodyBytes = DEFAULT_MAX_REQUEST_BODY_BYTES;

        private Builder(HttpClient http) {
            this.http = http;
        }

        /** The request header that carries the key. Default {@code Idempotency-Key}. */
        public Builder headerName(String headerName) {
            this.headerName = Keys.checkHeaderName(headerName);
            return this;
        }

        /** Attempts per logical request, the first one included; at least 1 (no retry). Default 5. */
        public Builder maxAttempts(int maxAttempts) {
            rules.maxAttempts(maxAttempts);
            return this;
        }

        /**
         * The time budget of one logical request, from the call to the last attempt; no wait ends past
         * it and every attempt's timeout is cut to what remains. Default 30 s.
         */
        public Builder deadline(Duration deadline) {
            rules.deadline(deadline);
            return this;
        }

        /**
         * The timeout of each attempt whose request has none of its own (see
         * {@link HttpRequest.Builder#timeout}). Default none: an attempt may take what remains of the
         * deadline.
         */
        public Builder attemptTimeout(Duration attemptTimeout) {
            this.attemptTimeout = RetryRules.Builder.positive("attemptTimeout", attemptTimeout);
            return this;
        }

        /**
         * Exponential backoff with full jitter: the (n+1)-th retry waits a random time in
         * [0, min(cap, base·2^n)]. Default base 100 ms, cap 5 s. {@code Retry-After} overrides it.
         */
        public Builder backoff(Duration base, Duration cap) {
            rules.backoff(base, cap);
            return this;
        }

        /**
         * The source of jitter, e.g. {@code new SplittableRandom(42)} for a reproducible test. Used
         * under its own lock, so it need not be thread-safe. Default {@link java.util.concurrent.ThreadLocalRandom}.
         */
        public Builder random(RandomGenerator random) {
            rules.random(random);
            return this;
        }

        /** How to wait between attempts. Default {@link Sleeper#system()}. */
        public Builder sleeper(Sleeper sleeper) {
            this.sleeper = Objects.requireNonNull(sleeper, "sleeper is null");
            return this;
        }

        /**
         * The clock that measures the deadline and turns a {@code Retry-After} HTTP-date into a delay.
         * Default: wall time read once, advanced by {@link System#nanoTime()}, so clock steps do not
         * move deadlines.
         */
        public Builder clock(Clock clock) {
            rules.clock(clock);
            return this;
        }

        /**
         * The response statuses that are retried, replacing the default 408, 425, 429 and 500–599. Each
         * must be in 400–599: a success or a redirect is never retried. None at all retries
         * connection failures (and a 409 whose problem type says the key is in progress) only. With
         * 409 in the list, every 409 is retried, whatever its body.
         */
        public Builder retryStatuses(int... statuses) {
            rules.retryStatuses(statuses);
            return this;
        }

        /**
         * The RFC 9457 problem types of a 409 that mean "this key is in progress elsewhere, retry"
         * (read from an {@code application/problem+json} body), replacing the default
         * {@code urn:idem:problem:key-in-use} of idem's filter; every other 409 is final. None: no 409
         * is retried unless 409 is one of the {@link #retryStatuses}.
         */
        public Builder inProgressProblemTypes(String... types) {
            rules.inProgressProblemTypes(types);
            return this;
        }

        /**
         * Whether to make a UUIDv4 key for a request that is not idempotent and carries none. Default
         * true. With false, such a request (a POST without a supplied key) is sent <b>once</b>, never
         * retried, because a repeat could execute twice.
         */
        public Builder generateKeys(boolean generateKeys) {
            this.generateKeys = generateKeys;
            return this;
        }

        /**
         * The largest request body the client reads to resend it on every attempt. Default 8 MiB. A
         * request that may be retried has its body read once, when {@code send} is called, and every
         * attempt sends those bytes; a larger body is refused with an {@link IllegalArgumentException}
         * naming this limit, before anything is sent. (A request sent once only — no key and a method
         * that is not idempotent — is sent with its own publisher, whatever its size.)
         */
        public Builder maxRequestBodyBytes(int maxRequestBodyBytes) {
            if (maxRequestBodyBytes < 0 || maxRequestBodyBytes > Integer.MAX_VALUE - 8) {
                throw new IllegalArgumentException("maxRequestBodyBytes must be between 0 and " + (Integer.MAX_VALUE - 8)
                        + ", was " + maxRequestBodyBytes);
            }
            this.maxRequestBodyBytes = maxRequestBodyBytes;
            return this;
        }

        public IdempotentHttpClient build() {
            RetryPolicy policy = new RetryPolicy(headerName, rules.build(), attemptTimeout, generateKeys, maxRequestBodyBytes);
            return new IdempotentHttpClient(http, policy, sleeper);
        }
    }
}
