package dev.idem.webflux;

import dev.idem.client.IdempotentRequestFailedException;
import dev.idem.client.IdempotentHttpClient;
import dev.idem.client.RetryRules;
import dev.idem.client.RetryRules.Decision;
import dev.idem.client.RetryRules.GiveUp;
import dev.idem.client.RetryRules.Retry;
import dev.idem.http.HttpAnswers;
import dev.idem.webflux.internal.Headers;
import java.io.IOException;
import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.TimeoutException;
import org.springframework.core.io.buffer.DefaultDataBufferFactory;
import org.springframework.http.HttpMethod;
import org.springframework.http.MediaType;
import org.springframework.web.reactive.function.client.ClientRequest;
import org.springframework.web.reactive.function.client.ClientResponse;
import org.springframework.web.reactive.function.client.ExchangeFilterFunction;
import org.springframework.web.reactive.function.client.ExchangeFunction;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * A {@link org.springframework.web.reactive.function.client.WebClient} filter that retries unsafe
 * requests safely: every attempt of one logical request carries the <em>same</em>
 * {@code Idempotency-Key}, so an idempotent server (idem's {@link IdempotencyWebFilter} or servlet
 * filter, Stripe) runs it once and replays the stored response to the repeats. The retry decisions
 * are {@link RetryRules}' — the very rules of idem-client's {@link IdempotentHttpClient}: 5xx, 408, 425
 * and 429 with their {@code Retry-After}, a 409 {@code urn:idem:problem:key-in-use} polled until the
 * deadline, an attempt without any response; never a final answer (2xx, 3xx, 400, 404, 422
 * {@code key-mismatch}, any other 409).
 *
 * <ul>
 *   <li><b>Which requests:</b> the {@link Builder#methods methods} (default POST and PATCH); any other
 *       request (a GET) passes through untouched, without a key and without retries.</li>
 *   <li><b>The key:</b> the one the caller set in the header (checked: 1–255 visible ASCII, once),
 *       else a fresh UUIDv4 made when the filter is invoked, i.e. once per subscription of the
 *       WebClient call (on {@link Schedulers#boundedElastic()}: its {@code SecureRandom} reads a
 *       file, which an event loop must not). An outer {@code .retry()} re-subscribes and so makes a new key: to keep one
 *       key across such retries, or across a crash of the caller, set the header yourself.</li>
 *   <li><b>Waiting:</b> reactively ({@link Mono#delay}), never blocking a thread; each attempt's wait
 *       for the response headers is cut to what remains of the deadline (and to
 *       {@link Builder#attemptTimeout}).</li>
 *   <li><b>The end:</b> the first final response, or the last one when the budget ran out (it may be a
 *       503); when the last attempt got no response, {@link IdempotentRequestFailedException} with the
 *       reason, the attempts and the key, the last failure as its cause.</li>
 * </ul>
 *
 * <p><b>The request body must be re-subscribable</b>: each attempt exchanges the same
 * {@link ClientRequest} again, which writes its body again. {@code bodyValue(…)} and
 * {@code BodyInserters.fromValue} are; a {@code Flux} body is only if it replays (a cold
 * {@code Flux.just}/{@code fromIterable}, not a one-shot stream). The body of a response that is
 * retried is released; a 409 problem body is read to tell its type and handed on unchanged.
 *
 * <p>Immutable and thread-safe; made by {@link #builder()}.
 */
public final class IdempotentWebClientFilter implements ExchangeFilterFunction {
    private static final Duration MIN_TIMEOUT = Duration.ofMillis(1);

    private final RetryRules rules;
    private final Set<HttpMethod> methods;
    private final String headerName;
    private final Duration attemptTimeout; // null: what remains of the deadline

    private IdempotentWebClientFilter(Builder builder) {
        this.rules = builder.rules;
        this.methods = Set.copyOf(builder.methods);
        this.headerName = builder.headerName;
        this.attemptTimeout = builder.attemptTimeout;
    }

    /** A builder with idem-client's default rules, POST and PATCH, and {@code Idempotency-Key}. */
    public static Builder builder() {
        return new Builder();
    }

    @Override
    public Mono<ClientResponse> filter(ClientRequest request, ExchangeFunction next) {
        if (!methods.contains(request.method())) {
            return next.exchange(request);
        }
        String supplied;
        try {
            supplied = RetryRules.suppliedKey(Headers.values(request.headers(), headerName), headerName);
        } catch (IllegalArgumentException e) {
            return Mono.error(e);
        }
        if (supplied != null) {
            return Mono.defer(() -> attempt(request, supplied, next, rules.start(true)));
        }
        // A UUIDv4 draws on SecureRandom, which reads /dev/urandom: a file read, not for an event loop.
        return Mono.fromCallable(RetryRules::newKey).subscribeOn(Schedulers.boundedElastic()).flatMap(key -> {
            ClientRequest keyed = ClientRequest.from(request).headers(headers -> headers.set(headerName, key)).build();
            return attempt(keyed, key, next, rules.start(true));
        });
    }

    /** One attempt, then what the rules say after it: its response, a retry after a wait, or the failure. */
    private Mono<ClientResponse> attempt(ClientRequest request, String key, ExchangeFunction next,
                                         RetryRules.Attempts attempts) {
        return Mono.defer(() -> {
                    attempts.attemptStarted();
                    return next.exchange(request).timeout(timeout(attempts));
                })
                .<Attempt>map(Answered::new)
                // Only a failure of this attempt is classified here, never one of a later attempt below.
                .onErrorResume(IdempotentWebClientFilter::isNoResponse, failure -> Mono.just(new Failed(failure)))
                .flatMap(outcome -> outcome instanceof Answered answered
                        ? afterResponse(answered.response(), request, key, next, attempts)
                        : afterFailure(((Failed) outcome).failure(), request, key, next, attempts));
    }

    private Mono<ClientResponse> afterResponse(ClientResponse response, ClientRequest request, String key,
                                               ExchangeFunction next, RetryRules.Attempts attempts) {
        int status = response.statusCode().value();
        String retryAfter = response.headers().asHttpHeaders().getFirst("Retry-After");
        String lifetime = response.headers().asHttpHeaders().getFirst(RetryRules.RETENTION_HEADER);
        if (status != 409 || !rules.readsConflictProblemTypes() || !isProblem(response)) {
            Decision decision = attempts.onResponse(status, retryAfter, null, lifetime);
            if (decision instanceof GiveUp giveUp) {
                return response.releaseBody().then(Mono.error(attempts.failure(giveUp, request.method().name(), request.url(), key, null)));
            }
            return decision instanceof Retry retry
                    ? response.releaseBody().then(retryAfter(retry, request, key, next, attempts))
                    : Mono.just(response);
        }
        // The 409's problem type tells a key in progress from another conflict; the body goes on unchanged.
        return response.bodyToMono(byte[].class).defaultIfEmpty(new byte[0]).flatMap(body -> {
            Decision decision = attempts.onResponse(status, retryAfter, RetryRules.problemType(body), lifetime);
            if (decision instanceof GiveUp giveUp) {
                return Mono.error(attempts.failure(giveUp, request.method().name(), request.url(), key, null));
            }
            return decision instanceof Retry retry
                    ? retryAfter(retry, request, key, next, attempts)
                    : Mono.just(response.mutate().body(Flux.just(DefaultDataBufferFactory.sharedInstance.wrap(body))).build());
        });
    }

    private Mono<ClientResponse> afterFailure(Throwable failure, ClientRequest request, String key,
                                              ExchangeFunction next, RetryRules.Attempts attempts) {
        Decision decision = attempts.onNoResponse();
        if (decision instanceof GiveUp giveUp) {
            return Mono.error(attempts.failure(giveUp, request.method().name(), request.url(), key, failure));
        }
        return retryAfter((Retry) decision, request, key, next, attempts);
    }

    private Mono<ClientResponse> retryAfter(Retry retry, ClientRequest request, String key, ExchangeFunction next,
                                            RetryRules.Attempts attempts) {
        return Mono.delay(retry.delay()).then(Mono.defer(() -> attempt(request, key, next, attempts)));
    }

    /** What remains of the deadline, or the attempt timeout if shorter: one hung attempt cannot outlive the budget. */
    private Duration timeout(RetryRules.Attempts attempts) {
        Duration remaining = attempts.remaining();
        Duration timeout = attemptTimeout != null && attemptTimeout.compareTo(remaining) < 0 ? attemptTimeout : remaining;
        return timeout.compareTo(MIN_TIMEOUT) < 0 ? MIN_TIMEOUT : timeout;
    }

    private static boolean isProblem(ClientResponse response) {
        return response.headers().contentType().map(MediaType.APPLICATION_PROBLEM_JSON::isCompatibleWith).orElse(false);
    }

    /**
     * No response at all: the connection was refused, reset or closed before the response (WebClient
     * wraps these I/O failures in a {@code WebClientRequestException}), or the attempt timed out.
     */
    private static boolean isNoResponse(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof IOException || t instanceof TimeoutException) {
                return true;
            }
        }
        return false;
    }

    @Override
    public String toString() {
        return "IdempotentWebClientFilter[methods=" + new java.util.TreeSet<>(methods.stream().map(HttpMethod::name).toList())
                + ", headerName=" + headerName + ", attemptTimeout=" + (attemptTimeout == null ? "none" : attemptTimeout)
                + ", " + rules + "]";
    }

    /** The outcome of one attempt, before the rules judge it. */
    private sealed interface Attempt permits Answered, Failed {
    }

    private record Answered(ClientResponse response) implements Attempt {
    }

    private record Failed(Throwable failure) implements Attempt {
    }

    /** Validates each setting as it is set, naming the bad value; {@link #build()} returns an immutable filter. */
    public static final class Builder {
        private RetryRules rules = RetryRules.builder().build();
        private Set<HttpMethod> methods = Set.of(HttpMethod.POST, HttpMethod.PATCH);
        private String headerName = "Idempotency-Key";
        private Duration attemptTimeout;

        private Builder() {
        }

        /**
         * The retry decisions, attempts and deadline, e.g.
         * {@code RetryRules.builder().maxAttempts(5).deadline(Duration.ofSeconds(10)).build()}; the
         * same object an {@link IdempotentHttpClient}'s settings describe. Default {@code RetryRules.builder().build()}.
         */
        public Builder rules(RetryRules rules) {
            this.rules = Objects.requireNonNull(rules, "rules is null");
            return this;
        }

        /**
         * The methods that get a key and are retried, replacing POST and PATCH; at least one, each an
         * HTTP token (case-sensitive: {@code "POST"}). Any other method passes through untouched.
         */
        public Builder methods(String... methods) {
            Objects.requireNonNull(methods, "methods is null");
            if (methods.length == 0) {
                throw new IllegalArgumentException("methods must name at least one method");
            }
            Set<HttpMethod> set = new LinkedHashSet<>();
            for (String method : methods) {
                set.add(HttpMethod.valueOf(HttpAnswers.requireToken("method", method)));
            }
            this.methods = set;
            return this;
        }

        /** The request header that carries the key. Default {@code Idempotency-Key}. */
        public Builder headerName(String headerName) {
            this.headerName = RetryRules.checkHeaderName(headerName);
            return this;
        }

        /**
         * The longest wait for one attempt's response headers; a longer attempt is abandoned (its
         * connection closed) and retried with the same key. Default none: what remains of the deadline.
         */
        public Builder attemptTimeout(Duration attemptTimeout) {
            Objects.requireNonNull(attemptTimeout, "attemptTimeout is null");
            if (attemptTimeout.isNegative() || attemptTimeout.isZero()) {
                throw new IllegalArgumentException("attemptTimeout must be positive, was " + attemptTimeout);
            }
            this.attemptTimeout = attemptTimeout;
            return this;
        }

        public IdempotentWebClientFilter build() {
            return new IdempotentWebClientFilter(this);
        }
    }
}
