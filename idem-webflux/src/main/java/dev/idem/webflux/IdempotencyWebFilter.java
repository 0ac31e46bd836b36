package dev.idem.webflux;

import dev.idem.Execution;
import dev.idem.Fingerprint;
import dev.idem.Idem;
import dev.idem.IdempotencyKey;
import dev.idem.OpenExecution;
import dev.idem.Outcome;
import dev.idem.Scope;
import dev.idem.Start;
import dev.idem.http.HttpAnswer;
import dev.idem.http.HttpAnswers;
import dev.idem.http.MalformedBodyException;
import dev.idem.http.RequestBodies;
import dev.idem.http.RequestFingerprints;
import dev.idem.http.RequestScopes;
import dev.idem.spi.Arguments;
import dev.idem.webflux.internal.Bodies;
import dev.idem.webflux.internal.BufferedRequest;
import dev.idem.webflux.internal.CapturingResponse;
import dev.idem.webflux.internal.ExchangeNames;
import dev.idem.webflux.internal.Headers;
import dev.idem.webflux.internal.WebFluxAnswers;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import org.springframework.core.Ordered;
import org.springframework.core.io.buffer.DataBufferLimitException;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.http.HttpHeaders;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.WebFilterChain;
import org.springframework.web.util.pattern.PathPattern;
import org.springframework.web.util.pattern.PathPatternParser;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * A Spring WebFlux {@link WebFilter} that makes the requests it covers idempotent under a
 * client-chosen key, with the Servlet filter's semantics (the project's {@code docs/http.md}): the
 * first request with a key runs the handler against a capturing response, its response is stored,
 * then sent; a repeat gets the stored response with {@code Idempotent-Replayed: true}, a request
 * with another body 422, one while the first still runs 409 with {@code Retry-After}, a store
 * failure 503 with {@code Retry-After}. Every answer is idem-http's ({@link HttpAnswers}), every
 * fingerprint {@link RequestFingerprints}', every scope {@link RequestScopes}'.
 *
 * <p><b>The store blocks; the event loop must not.</b> Every call into the engine ({@link Idem#start},
 * {@link OpenExecution#complete}, {@link OpenExecution#fail}) runs on the filter's store
 * {@link Builder#storeScheduler scheduler}, by default {@link Schedulers#boundedElastic()} — bounded
 * threads for blocking work — never on a Netty event loop. The handler itself runs where WebFlux runs it.
 *
 * <p>Limits: the request body of a keyed request is buffered in memory up to
 * {@link Builder#maxRequestBytes} (413 beyond); the handler's response body is held in memory in
 * full until it is stored, then sent (the engine stores it only up to its
 * {@link Idem#maxResponseBytes() cap}); a streamed (server-sent events) response is held until it
 * ends. Immutable and thread-safe; made by {@link #builder(Idem)}.
 */
public final class IdempotencyWebFilter implements WebFilter, Ordered {
    /** The key header of the IETF draft and Stripe. */
    public static final String DEFAULT_HEADER_NAME = "Idempotency-Key";
    /** Default of the request body cap: 1 MiB. */
    public static final int DEFAULT_MAX_BODY_BYTES = 1024 * 1024;
    /** Default {@code Retry-After} of the answers to store and lease failures: 2 seconds. */
    public static final Duration DEFAULT_FAILURE_RETRY_AFTER = Duration.ofSeconds(2);
    /** The methods that are not safe (RFC 9110 §9.2.1) and so may be keyed. */
    public static final List<String> UNSAFE_METHODS = List.of("POST", "PUT", "PATCH", "DELETE");

    /** Marks an exchange this filter already took on, so a second pass (double registration) passes through. */
    private static final String APPLIED_ATTRIBUTE = IdempotencyWebFilter.class.getName() + ".applied";
    /** The exchange attribute holding the covered request's {@link Execution}; see {@link #execution}. */
    public static final String EXECUTION_ATTRIBUTE = IdempotencyWebFilter.class.getName() + ".execution";

    private final Idem idem;
    private final List<Route> routes;
    private final String headerName;
    private final ExchangePolicyResolver policies;
    private final int maxRequestBytes;
    private final ExchangeScopeResolver scopes;
    private final Scheduler storeScheduler;
    private final HttpAnswers answers;
    private final int order;

    private IdempotencyWebFilter(Builder b) {
        this.idem = b.idem;
        this.routes = b.routes.isEmpty() ? List.of(new Route(new LinkedHashSet<>(List.of("POST", "PATCH")), b.parse("/**"))) : List.copyOf(b.routes);
        this.headerName = b.headerName;
        this.policies = b.policies != null ? b.policies
                : ExchangePolicyResolver.always(b.keyRequired ? ExchangePolicy.required() : ExchangePolicy.optional());
        this.maxRequestBytes = b.maxRequestBytes;
        this.scopes = b.scopes;
        this.storeScheduler = b.storeScheduler;
        this.answers = new HttpAnswers(headerName, b.failureRetryAfter);
        this.order = b.order;
    }

    /**
     * The execution of the covered request this exchange carries, to run {@linkplain Execution#phase
     * phases} in (a charge whose result survives a crash, with its derived downstream key); empty
     * outside a covered request that owns its key. A phase writes a checkpoint to the store, which
     * blocks: run it on a scheduler made for blocking work ({@code Schedulers.boundedElastic()}),
     * never on an event loop.
     */
    public static Optional<Execution> execution(ServerWebExchange exchange) {
        return exchange.getAttribute(EXECUTION_ATTRIBUTE) instanceof Execution execution ? Optional.of(execution) : Optional.empty();
    }

    /** A builder for a filter running covered requests through {@code idem}. */
    public static Builder builder(Idem idem) {
        return new Builder(idem);
    }

    @Override
    public Mono<Void> filter(ServerWebExchange exchange, WebFilterChain chain) {
        if (exchange.getAttribute(APPLIED_ATTRIBUTE) != null || !covered(exchange.getRequest())) {
            return chain.filter(exchange);
        }
        return policies.resolve(exchange)
                .switchIfEmpty(Mono.error(() -> new IllegalStateException("the ExchangePolicyResolver returned an empty Mono")))
                .flatMap(policy -> apply(policy, exchange, chain));
    }

    /**
     * Runs {@code exchange} under {@code policy}, whatever the filter's routes: the filter's own path
     * once its routes and resolver have decided, and {@link IdempotentRouteFilter}'s on a functional route,
     * so both take every decision here. An exchange this filter already took on passes through.
     */
    Mono<Void> apply(ExchangePolicy policy, ServerWebExchange exchange, WebFilterChain chain) {
        if (!policy.covered() || exchange.getAttribute(APPLIED_ATTRIBUTE) != null) {
            return chain.filter(exchange);
        }
        ServerHttpRequest request = exchange.getRequest();
        HttpAnswers.KeyHeader keyHeader = answers.key(Headers.values(request.getHeaders(), headerName));
        if (keyHeader instanceof HttpAnswers.KeyHeader.Refused refused) {
            return write(refused.answer(), exchange);
        }
        if (!(keyHeader instanceof HttpAnswers.KeyHeader.Valid valid)) {
            return policy.keyRequired() ? write(answers.keyMissing(), exchange) : chain.filter(exchange);
        }
        if (request.getHeaders().getContentLength() > maxRequestBytes) {
            return write(answers.requestTooLarge(maxRequestBytes), exchange); // refused before reading a byte
        }
        exchange.getAttributes().put(APPLIED_ATTRIBUTE, Boolean.TRUE);
        return readBody(request)
                .flatMap(body -> keyed(policy.idem().orElse(idem), exchange, chain, valid.key(), body))
                .onErrorResume(DataBufferLimitException.class, e -> write(answers.requestTooLarge(maxRequestBytes), exchange));
    }

    private boolean covered(ServerHttpRequest request) {
        String method = request.getMethod().name();
        for (Route route : routes) {
            if (route.methods().contains(method) && route.pattern().matches(request.getPath().pathWithinApplication())) {
                return true;
            }
        }
        return false;
    }

    /** The whole body, at most {@code maxRequestBytes} (else a {@link DataBufferLimitException}); empty for none. */
    private Mono<byte[]> readBody(ServerHttpRequest request) {
        return Bodies.bytes(DataBufferUtils.join(request.getBody(), maxRequestBytes));
    }

    private Mono<Void> keyed(Idem engine, ServerWebExchange exchange, WebFilterChain chain, IdempotencyKey key, byte[] body) {
        Fingerprint fingerprint;
        try {
            fingerprint = fingerprint(exchange.getRequest(), body);
        } catch (MalformedBodyException e) {
            return write(answers.malformedJson(e.getMessage()), exchange);
        }
        return scopes.resolve(exchange)
                .switchIfEmpty(Mono.error(() -> new IllegalStateException("the ExchangeScopeResolver returned an empty Mono")))
                .flatMap(scope -> start(engine, scope, key, fingerprint))
                .flatMap(began -> {
                    if (began.refusal() != null) {
                        return write(advertised(began.refusal()), exchange);
                    }
                    if (began.start() instanceof Start.Owned owned) {
                        return run(owned.execution(), exchange, chain, body);
                    }
                    return write(advertised(answers.answer(((Start.Answered) began.start()).outcome())), exchange);
                });
    }

    private static Fingerprint fingerprint(ServerHttpRequest request, byte[] body) {
        String mediaType = RequestFingerprints.mediaType(request.getHeaders().getFirst(HttpHeaders.CONTENT_TYPE));
        return RequestFingerprints.fingerprint(request.getMethod().name(), ExchangeNames.pathWithinApplication(request),
                request.getURI().getRawQuery(), mediaType, RequestFingerprints.canonicalBody(mediaType, body));
    }

    /** The engine's claim, on the store scheduler; a store failure becomes its answer (503), as nothing ran. */
    private Mono<Began> start(Idem engine, Scope scope, IdempotencyKey key, Fingerprint fingerprint) {
        return Mono.fromCallable(() -> new Began(engine.start(scope, key, fingerprint), null))
                .subscribeOn(storeScheduler)
                .onErrorResume(e -> answers.failure(e, false)
                        .map(answer -> Mono.just(new Began(null, answer)))
                        .orElseGet(() -> Mono.error(e)));
    }

    /** What {@link #start} found: the engine's start, or the answer to a failure to start. */
    private record Began(Start start, HttpAnswer refusal) {
    }

    /**
     * Runs the handler against a capture, then stores its response (or gives the key back if it
     * failed) on the store scheduler, then sends it: lock key → effect → store → send.
     *
     * <p>The handler and the store's write run to their end even when the exchange is cancelled (the
     * client went away, or its attempt timed out), as a Servlet container's handler does: a handler
     * cut off midway may have made its effect already, and giving its key back would let the
     * client's retry make it again. Once stored, that retry gets the response as a replay.
     */
    private Mono<Void> run(OpenExecution execution, ServerWebExchange exchange, WebFilterChain chain, byte[] body) {
        CapturingResponse capture = new CapturingResponse(exchange.getResponse());
        ServerWebExchange inner = exchange.mutate().request(new BufferedRequest(exchange.getRequest(), body)).response(capture).build();
        inner.getAttributes().put(EXECUTION_ATTRIBUTE, execution);
        AtomicBoolean ended = new AtomicBoolean(); // complete or fail, exactly once
        CompletableFuture<Outcome> handledAndStored = chain.filter(inner)
                .then(Mono.defer(capture::beforeCommitted))
                .onErrorResume(failure -> giveBack(execution, ended, failure).then(Mono.error(failure)))
                .then(Mono.fromCallable(() -> complete(execution, ended, capture)).subscribeOn(storeScheduler))
                .toFuture();
        return Mono.fromFuture(handledAndStored, true) // a cancel of the exchange does not reach the handler
                .flatMap(outcome -> outcome instanceof Outcome.Executed ? sendExecuted(capture)
                        : write(advertised(answers.answer(outcome)), exchange))
                .onErrorResume(failure -> answers.failure(failure, true)
                        .map(answer -> {
                            capture.discard(); // none of the handler's status, headers or cookies
                            return write(advertised(answer), exchange);
                        })
                        .orElseGet(() -> Mono.error(failure)));
    }

    /** The handler's response, stored by now, sent with the key's lifetime ({@link HttpAnswers#RETENTION_HEADER}). */
    private Mono<Void> sendExecuted(CapturingResponse capture) {
        HttpAnswer.Header retention = HttpAnswers.retentionHeader(idem.retention());
        capture.getHeaders().set(retention.name(), retention.value());
        return capture.sendToClient();
    }

    /** {@code answer} with the key's lifetime: on every answer to a covered request that reached the engine. */
    private HttpAnswer advertised(HttpAnswer answer) {
        return HttpAnswers.advertisingRetention(answer, idem.retention());
    }

    private static Outcome complete(OpenExecution execution, AtomicBoolean ended, CapturingResponse capture) {
        if (!ended.compareAndSet(false, true)) {
            throw new IllegalStateException("the execution was already given back");
        }
        return execution.complete(capture.toStored());
    }

    /** Gives the key back after the handler failed, on the store scheduler; store failures are attached to {@code failure}. */
    private Mono<Void> giveBack(OpenExecution execution, AtomicBoolean ended, Throwable failure) {
        return Mono.<Void>fromRunnable(() -> {
            if (ended.compareAndSet(false, true)) {
                execution.fail(failure);
            }
        }).subscribeOn(storeScheduler);
    }

    private static Mono<Void> write(HttpAnswer answer, ServerWebExchange exchange) {
        return WebFluxAnswers.write(answer, exchange.getResponse());
    }

    /** Its place among an application's {@code WebFilter}s ({@link Builder#order}). */
    @Override
    public int getOrder() {
        return order;
    }

    @Override
    public String toString() {
        return "IdempotencyWebFilter[routes=" + routes + ", header=" + headerName + ", policies=" + policies
                + ", maxRequestBytes=" + maxRequestBytes + ", storeScheduler=" + storeScheduler + ", " + idem + "]";
    }

    /** Methods and a path pattern (Spring's {@link PathPattern} syntax) whose requests are covered. */
    private record Route(Set<String> methods, PathPattern pattern) {
        @Override
        public String toString() {
            return methods + " " + pattern.getPatternString();
        }
    }

    /**
     * Collects the filter's settings; each setter validates its value and names it in the error.
     * {@link #build()} returns an immutable filter; the builder can be reused.
     */
    public static final class Builder {
        private final Idem idem;
        private final List<Route> routes = new ArrayList<>();
        private String headerName = DEFAULT_HEADER_NAME;
        private boolean keyRequired = true;
        private ExchangePolicyResolver policies;
        private int maxRequestBytes = DEFAULT_MAX_BODY_BYTES;
        private ExchangeScopeResolver scopes = ExchangeScopeResolver.principal();
        private Scheduler storeScheduler = Schedulers.boundedElastic();
        private Duration failureRetryAfter = DEFAULT_FAILURE_RETRY_AFTER;
        private int order = Ordered.LOWEST_PRECEDENCE;

        private Builder(Idem idem) {
            this.idem = Objects.requireNonNull(idem, "idem is null");
        }

        /**
         * Covers requests of {@code method} whose path within the application matches
         * {@code pathPattern} (Spring's {@link PathPattern} syntax: {@code /orders/**},
         * {@code /orders/{id}}). May be called several times; a request any route matches is covered.
         * Without a route the filter covers {@code POST} and {@code PATCH} on every path.
         */
        public Builder route(String method, String pathPattern) {
            routes.add(new Route(Set.of(HttpAnswers.requireToken("method", method)), parse(pathPattern)));
            return this;
        }

        /** Covers every unsafe method ({@link IdempotencyWebFilter#UNSAFE_METHODS}) on paths matching {@code pathPattern}. */
        public Builder unsafeMethods(String pathPattern) {
            routes.add(new Route(new LinkedHashSet<>(UNSAFE_METHODS), parse(pathPattern)));
            return this;
        }

        /** Covers every unsafe method ({@link IdempotencyWebFilter#UNSAFE_METHODS}) on every path. */
        public Builder allUnsafeMethods() {
            return unsafeMethods("/**");
        }

        /** The key header. Default {@value IdempotencyWebFilter#DEFAULT_HEADER_NAME}. */
        public Builder headerName(String headerName) {
            this.headerName = HttpAnswers.requireToken("headerName", headerName);
            return this;
        }

        /**
         * Whether a covered request without a key is answered 400 {@code key-missing} (true, the
         * default) or passes through, unprotected (false). The policy of every exchange on the routes
         * unless a {@link #policyResolver} decides per exchange.
         */
        public Builder keyRequired(boolean keyRequired) {
            this.keyRequired = keyRequired;
            return this;
        }

        /**
         * Decides per exchange on the filter's routes whether it is covered, whether its key is
         * required and which engine runs it (an annotation on the handler, say); replaces
         * {@link #keyRequired}. Default: every exchange on the routes, with {@link #keyRequired}.
         */
        public Builder policyResolver(ExchangePolicyResolver resolver) {
            this.policies = Objects.requireNonNull(resolver, "policyResolver is null");
            return this;
        }

        /** Larger request bodies of keyed requests are answered 413 without running anything. Default 1 MiB. */
        public Builder maxRequestBytes(int maxRequestBytes) {
            this.maxRequestBytes = RequestBodies.checkLimit("maxRequestBytes", maxRequestBytes);
            return this;
        }

        /** Default {@link ExchangeScopeResolver#principal()}. */
        public Builder scopeResolver(ExchangeScopeResolver resolver) {
            this.scopes = Objects.requireNonNull(resolver, "scopeResolver is null");
            return this;
        }

        /**
         * Where the engine's blocking store calls run: a scheduler whose threads may block, never one
         * of event loops ({@link Schedulers#parallel()}, Netty's). Default {@link Schedulers#boundedElastic()}
         * (at most ten threads a core, queued beyond); pass {@code Schedulers.newBoundedElastic(…)} to
         * keep the store's calls apart from the application's other blocking work. The filter never
         * disposes of it.
         *
         * @throws IllegalArgumentException for a scheduler whose threads must not block
         */
        public Builder storeScheduler(Scheduler scheduler) {
            Objects.requireNonNull(scheduler, "storeScheduler is null");
            if (scheduler == Schedulers.parallel() || scheduler == Schedulers.single() || scheduler == Schedulers.immediate()) {
                throw new IllegalArgumentException("storeScheduler must allow blocking (the store blocks), was " + scheduler
                        + "; use Schedulers.boundedElastic() or Schedulers.newBoundedElastic(...)");
            }
            this.storeScheduler = scheduler;
            return this;
        }

        /**
         * The {@code Retry-After} of the answers to a store failure (503 {@code store-unavailable}) and
         * to a lost lease (409 {@code key-in-use}), sent in whole seconds, rounded up. Default 2 s.
         */
        public Builder failureRetryAfter(Duration failureRetryAfter) {
            this.failureRetryAfter = Arguments.positive("failureRetryAfter", failureRetryAfter);
            return this;
        }

        /**
         * Its place among the application's {@code WebFilter}s ({@link Ordered}, lower first): after a
         * security filter (Spring Security's chain is at -100), so the principal is known. Default
         * {@link Ordered#LOWEST_PRECEDENCE}, the place of a filter without an order.
         */
        public Builder order(int order) {
            this.order = order;
            return this;
        }

        public IdempotencyWebFilter build() {
            return new IdempotencyWebFilter(this);
        }

        private PathPattern parse(String pathPattern) {
            Objects.requireNonNull(pathPattern, "pathPattern is null");
            try {
                return PathPatternParser.defaultInstance.parse(pathPattern);
            } catch (RuntimeException e) {
                throw new IllegalArgumentException("pathPattern is not a valid path pattern: " + e.getMessage(), e);
            }
        }
    }
}
