package dev.idem.servlet;

import dev.idem.Execution;
import dev.idem.Fingerprint;
import dev.idem.Idem;
import dev.idem.IdempotencyKey;
import dev.idem.Operation;
import dev.idem.OperationFailedException;
import dev.idem.Outcome;
import dev.idem.Scope;
import dev.idem.StoragePolicy;
import dev.idem.StoredResponse;
import dev.idem.http.HttpAnswer;
import dev.idem.http.HttpAnswers;
import dev.idem.http.MalformedBodyException;
import dev.idem.http.RequestBodies;
import dev.idem.http.StoredRequest;
import dev.idem.servlet.internal.BufferedRequest;
import dev.idem.servlet.internal.CapturingResponse;
import dev.idem.servlet.internal.ServletAnswers;
import dev.idem.spi.Arguments;
import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.time.Duration;
import java.util.Collections;
import java.util.Enumeration;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A Servlet filter that makes the requests it covers idempotent under a client-chosen key, with the
 * semantics of Stripe's API and of {@code draft-ietf-httpapi-idempotency-key-header}: the first
 * request with a key runs the handler through the route's {@link RequestRunner} (by default
 * {@link Idem#execute}) against a capturing response, its response is stored, then sent; a repeat
 * gets the stored response with {@code Idempotent-Replayed: true}, a request with another body 422,
 * one while the first still runs 409 with {@code Retry-After}. Problems are RFC 9457
 * {@code application/problem+json} and never carry the key's value or the body.
 *
 * <p>Every answer, what is stored (the engine's one {@link StoragePolicy} and response cap)
 * and the handler's {@value #STORE_HEADER}{@code : no}, store and lease failures, phases
 * ({@link #execution(ServletRequest)}) and the limits (synchronous handlers, no multipart) are
 * described in the project's {@code docs/http.md}.
 *
 * <p>Immutable and thread-safe; made by {@link #builder(Idem)} and registered programmatically
 * ({@code ServletContext.addFilter(name, filter)}) for the {@code REQUEST} dispatcher type.
 */
public final class IdempotencyFilter implements Filter {
    /** Request attribute holding the {@link Execution} while a covered handler runs. */
    public static final String EXECUTION_ATTRIBUTE = "dev.idem.servlet.execution";
    /** The key header of the IETF draft and Stripe. */
    public static final String DEFAULT_HEADER_NAME = "Idempotency-Key";
    /** Default of the request body cap: 1 MiB. (The response cap is the engine's, {@link Idem#maxResponseBytes()}.) */
    public static final int DEFAULT_MAX_BODY_BYTES = 1024 * 1024;
    /**
     * Response header by which a covered handler declines storage of its response (value {@code no}):
     * the response goes to the engine {@linkplain StoragePolicy#declined declined}, and the key is given
     * back as for a status the {@link StoragePolicy} does not store. Neither the client nor the store
     * sees the header.
     */
    public static final String STORE_HEADER = CapturingResponse.STORE_HEADER;
    /** Default {@code Retry-After} of the answers to store and lease failures: 2 seconds. */
    public static final Duration DEFAULT_FAILURE_RETRY_AFTER = Duration.ofSeconds(2);

    /** Marks a request this filter already took on, so a second pass (double registration) passes through. */
    private static final String APPLIED_ATTRIBUTE = IdempotencyFilter.class.getName() + ".applied";
    /** Variants of the filter's engine kept for routes with a storage policy of their own, at most. */
    private static final int MAX_ROUTE_RUNNERS = 256;

    private final Idem idem;
    private final Set<String> methods;
    private final String headerName;
    private final RoutePolicyResolver routePolicies;
    private final ScopeResolver scopes;
    private final RequestFingerprinter fingerprinter;
    private final int maxRequestBytes;
    private final Duration failureRetryAfter;
    /** The HTTP rules: the key header, the answer to each outcome and failure. */
    private final HttpAnswers answers;
    private final RequestRunner defaultRunner;
    private final Map<StoragePolicy, RequestRunner> routeRunners = new ConcurrentHashMap<>();

    private IdempotencyFilter(Builder b) {
        boolean sameCap = b.maxResponseBytes == null || b.maxResponseBytes == b.idem.maxResponseBytes();
        boolean samePolicy = b.storagePolicy == null || b.storagePolicy == b.idem.storagePolicy();
        if (sameCap && samePolicy) {
            this.idem = b.idem;
        } else {
            Idem.Builder engine = b.idem.toBuilder();
            if (!sameCap) {
                engine.maxResponseBytes(b.maxResponseBytes);
            }
            if (!samePolicy) {
                engine.storagePolicy(b.storagePolicy);
            }
            this.idem = engine.build();
        }
        this.defaultRunner = RequestRunner.of(idem);
        this.methods = Collections.unmodifiableSet(new LinkedHashSet<>(b.methods));
        this.headerName = b.headerName;
        this.routePolicies = b.routePolicies;
        this.scopes = b.scopes;
        this.fingerprinter = b.fingerprinter;
        this.maxRequestBytes = b.maxRequestBytes;
        this.failureRetryAfter = b.failureRetryAfter;
        this.answers = new HttpAnswers(headerName, failureRetryAfter);
    }

    /** A builder for a filter running covered requests through {@code idem}. */
    public static Builder builder(Idem idem) {
        return new Builder(idem);
    }

    /**
     * The claim under which the current covered handler runs, to run {@linkplain Execution#phase
     * phases}; empty outside a covered request, and on a route whose {@link RequestRunner} runs the
     * handler without an {@code Execution} (a transactional runner, where the whole request is one
     * database transaction and there is nothing to resume).
     */
    public static Optional<Execution> execution(ServletRequest request) {
        Object value = request.getAttribute(EXECUTION_ATTRIBUTE);
        return value instanceof Execution execution ? Optional.of(execution) : Optional.empty();
    }

    @Override
    public void doFilter(ServletRequest req, ServletResponse res, FilterChain chain) throws IOException, ServletException {
        if (!(req instanceof HttpServletRequest request) || !(res instanceof HttpServletResponse response)
                || !methods.contains(request.getMethod()) || request.getAttribute(APPLIED_ATTRIBUTE) != null) {
            chain.doFilter(req, res);
            return;
        }
        RoutePolicy policy = routePolicies.resolve(request);
        if (policy == null) {
            throw new IllegalStateException("the RoutePolicyResolver returned null for " + request.getMethod() + " "
                    + request.getRequestURI() + "; return RoutePolicy.notCovered() to pass a request through");
        }
        if (!policy.covered()) {
            chain.doFilter(req, res);
            return;
        }
        Enumeration<String> keyValues = request.getHeaders(headerName); // null if the container hides headers
        HttpAnswers.KeyHeader keyHeader = answers.key(keyValues == null ? List.of() : Collections.list(keyValues));
        if (keyHeader instanceof HttpAnswers.KeyHeader.Refused refused) {
            ServletAnswers.write(refused.answer(), response);
            return;
        }
        if (!(keyHeader instanceof HttpAnswers.KeyHeader.Valid valid)) {
            if (policy.keyRequired()) {
                ServletAnswers.write(answers.keyMissing(), response);
            } else {
                chain.doFilter(req, res);
            }
            return;
        }
        IdempotencyKey key = valid.key();
        RoutePolicy.Completion completion = policy.completion().orElse(null);
        // A completable route's body is stored with the claim: it must also fit the stored input.
        int bodyLimit = completion == null ? maxRequestBytes : Math.min(maxRequestBytes, StoredRequest.MAX_BODY_BYTES);
        byte[] body = readBody(request, bodyLimit);
        if (body == null) {
            ServletAnswers.write(answers.requestTooLarge(bodyLimit), response);
            return;
        }
        Fingerprint fingerprint;
        try {
            fingerprint = fingerprinter.fingerprint(request, body);
        } catch (MalformedBodyException e) {
            ServletAnswers.write(answers.malformedJson(e.getMessage()), response);
            return;
        }
        Scope scope = scopes.resolve(request);
        Objects.requireNonNull(scope, "the ScopeResolver returned null");
        request.setAttribute(APPLIED_ATTRIBUTE, Boolean.TRUE);
        try {
            Idem engine = policy.idem().orElse(idem);
            RequestRunner runner = runnerOf(policy);
            StoredRequest stored = null;
            if (completion != null) {
                try {
                    stored = ServletCompletion.storedRequest(request, completion.keptHeaders(), body);
                } catch (IllegalArgumentException unstorable) {
                    // Before the claim: nothing runs, nothing is stored; the rule's text names no value.
                    ServletAnswers.write(answers.requestNotStorable(unstorable.getMessage()), response);
                    return;
                }
            }
            run(runner, engine.maxResponseBytes(), runner.retention().orElse(engine.retention()), scope, key, fingerprint,
                    new BufferedRequest(request, body), response, chain, stored, completion);
        } finally {
            request.removeAttribute(APPLIED_ATTRIBUTE);
        }
    }

    /**
     * The route's runner, on the engine whose storage policy and cap decide: the route's runner or
     * engine as the route made it, else the filter's engine (a variant of it when the route has a
     * storage policy of its own).
     */
    private RequestRunner runnerOf(RoutePolicy policy) {
        if (policy.runner().isPresent()) {
            return policy.runner().get();
        }
        if (policy.idem().isPresent()) {
            return RequestRunner.of(policy.idem().get());
        }
        StoragePolicy storage = policy.storagePolicy().orElse(null);
        if (storage == null || storage == idem.storagePolicy()) {
            return defaultRunner;
        }
        RequestRunner cached = routeRunners.get(storage);
        if (cached != null) {
            return cached;
        }
        RequestRunner derived = defaultRunner.withStoragePolicy(storage);
        // Bounded: a resolver that makes a new policy per request gets a variant per request instead of a leak.
        if (routeRunners.size() < MAX_ROUTE_RUNNERS) {
            routeRunners.putIfAbsent(storage, derived);
        }
        return derived;
    }

    private static byte[] readBody(HttpServletRequest request, int limit) throws IOException {
        long declared = request.getContentLengthLong();
        if (declared > limit) {
            return null; // refused before reading a byte
        }
        return BufferedRequest.readBounded(request.getInputStream(), limit, declared);
    }

    private void run(RequestRunner runner, int maxResponseBytes, Duration retention, Scope scope, IdempotencyKey key,
                     Fingerprint fingerprint, BufferedRequest request, HttpServletResponse response, FilterChain chain,
                     StoredRequest stored, RoutePolicy.Completion completion) throws IOException, ServletException {
        // The engine owns the response cap: the capture holds no more of the body in memory than it stores.
        try (CapturingResponse capture = new CapturingResponse(response, maxResponseBytes)) {
            Handler handler = new Handler(request, capture, chain);
            // Completion: the request is stored with the claim as the registered operation's input; this
            // request's own chain runs live (and on a live retry's takeover), a completer's takeover runs the operation.
            Operation operation = completion == null ? handler : completion.operations().operation(completion.operationName(),
                    stored, handler);
            Outcome outcome;
            try {
                outcome = Objects.requireNonNull(runner.run(scope, key, fingerprint, operation), "the RequestRunner returned null");
            } catch (RuntimeException e) {
                answerFailure(handlerFailure(e), handler.started, retention, response, capture);
                return;
            }
            answer(outcome, retention, response, capture);
        }
    }

    /**
     * What the request's handler is to the engine: it runs the filter chain against the capture and
     * returns what it captured; whether that is stored is the engine's decision.
     */
    private static final class Handler implements Operation {
        private final BufferedRequest request;
        private final CapturingResponse capture;
        private final FilterChain chain;
        /** Whether the runner acquired the key and the handler began: a store failure is then told apart. */
        private boolean started;

        Handler(BufferedRequest request, CapturingResponse capture, FilterChain chain) {
            this.request = request;
            this.capture = capture;
            this.chain = chain;
        }

        @Override
        public StoredResponse run(Execution execution) throws IOException, ServletException {
            if (execution != null) {
                request.setAttribute(EXECUTION_ATTRIBUTE, execution);
            }
            started = true;
            try {
                chain.doFilter(request, capture);
            } finally {
                request.removeAttribute(EXECUTION_ATTRIBUTE);
            }
            return capture.toStored();
        }
    }

    /** The handler's own checked exception when the runner wrapped it, else what the runner threw. */
    private static Throwable handlerFailure(RuntimeException e) {
        if (e instanceof OperationFailedException && (e.getCause() instanceof IOException || e.getCause() instanceof ServletException)) {
            return e.getCause();
        }
        return e;
    }

    private void answer(Outcome outcome, Duration retention, HttpServletResponse response, CapturingResponse capture)
            throws IOException {
        if (outcome instanceof Outcome.Executed) {
            HttpAnswer.Header advertised = HttpAnswers.retentionHeader(retention);
            response.setHeader(advertised.name(), advertised.value());
            capture.sendToClient(); // stored or not, in full, even when the stored copy omitted an oversized body
        } else {
            ServletAnswers.write(HttpAnswers.advertisingRetention(answers.answer(outcome), retention), response);
        }
    }

    /**
     * Answers a store or lease failure (503, 409) while the response can still be replaced; rethrows
     * anything else, the handler's own exceptions as they are, to the container.
     */
    private void answerFailure(Throwable failure, boolean handlerStarted, Duration retention, HttpServletResponse response,
                               CapturingResponse capture) throws IOException, ServletException {
        Optional<HttpAnswer> answer = response.isCommitted() ? Optional.empty() : answers.failure(failure, handlerStarted);
        if (answer.isPresent()) {
            capture.discard(); // none of the handler's status, headers or cookies
            ServletAnswers.write(HttpAnswers.advertisingRetention(answer.get(), retention), response);
            return;
        }
        if (failure instanceof IOException io) {
            throw io;
        }
        if (failure instanceof ServletException servlet) {
            throw servlet;
        }
        throw (RuntimeException) failure;
    }

    @Override
    public String toString() {
        return "IdempotencyFilter[methods=" + methods + ", header=" + headerName + ", maxRequestBytes=" + maxRequestBytes
                + ", maxResponseBytes=" + idem.maxResponseBytes() + ", " + idem.storagePolicy() + ", failureRetryAfter=" + failureRetryAfter
                + ", " + idem + "]";
    }

    /**
     * Collects the filter's settings; each setter validates its value and names it in the error.
     * {@link #build()} returns an immutable filter; the builder can be reused.
     */
    public static final class Builder {
        private final Idem idem;
        private Set<String> methods = new LinkedHashSet<>(List.of("POST", "PATCH"));
        private String headerName = DEFAULT_HEADER_NAME;
        private RoutePolicyResolver routePolicies = RoutePolicyResolver.always(RoutePolicy.required());
        private ScopeResolver scopes = ScopeResolver.userPrincipal();
        private RequestFingerprinter fingerprinter = new RequestFingerprinter();
        private int maxRequestBytes = DEFAULT_MAX_BODY_BYTES;
        /** Null: the engine's cap as it is. */
        private Integer maxResponseBytes;
        /** Null: the engine's policy as it is. */
        private StoragePolicy storagePolicy;
        private Duration failureRetryAfter = DEFAULT_FAILURE_RETRY_AFTER;

        private Builder(Idem idem) {
            this.idem = Objects.requireNonNull(idem, "idem is null");
        }

        /**
         * The methods whose requests are considered at all; others pass through untouched. Default
         * {@code POST, PATCH}. Case-sensitive, as HTTP methods are.
         */
        public Builder methods(String... methods) {
            Objects.requireNonNull(methods, "methods is null");
            if (methods.length == 0) {
                throw new IllegalArgumentException("methods must name at least one method");
            }
            Set<String> set = new LinkedHashSet<>();
            for (String method : methods) {
                set.add(token("method", method));
            }
            this.methods = set;
            return this;
        }

        /** The key header. Default {@value IdempotencyFilter#DEFAULT_HEADER_NAME}. */
        public Builder headerName(String headerName) {
            this.headerName = token("headerName", headerName);
            return this;
        }

        /** Which covered-method requests are covered, key required or optional, with which Idem. Default: all, key required. */
        public Builder routePolicyResolver(RoutePolicyResolver resolver) {
            this.routePolicies = Objects.requireNonNull(resolver, "routePolicyResolver is null");
            return this;
        }

        /** Default {@link ScopeResolver#userPrincipal()}. */
        public Builder scopeResolver(ScopeResolver resolver) {
            this.scopes = Objects.requireNonNull(resolver, "scopeResolver is null");
            return this;
        }

        /** Default {@code new RequestFingerprinter()}. */
        public Builder fingerprinter(RequestFingerprinter fingerprinter) {
            this.fingerprinter = Objects.requireNonNull(fingerprinter, "fingerprinter is null");
            return this;
        }

        /** Larger request bodies are answered 413 without running anything. Default 1 MiB. */
        public Builder maxRequestBytes(int maxRequestBytes) {
            this.maxRequestBytes = bytes("maxRequestBytes", maxRequestBytes);
            return this;
        }

        /**
         * Sets the engine's response cap for this filter: the filter runs on
         * {@code idem.toBuilder().maxResponseBytes(n)}. Larger response bodies are sent in full but
         * stored empty, with {@code Idempotent-Body-Omitted: true}. Default: the engine's own cap
         * ({@link Idem#maxResponseBytes()}), the one cap that applies; a route's own {@link Idem}
         * ({@link RoutePolicy#withIdem}) keeps its cap.
         */
        public Builder maxResponseBytes(int maxResponseBytes) {
            this.maxResponseBytes = bytes("maxResponseBytes", maxResponseBytes);
            return this;
        }

        /**
         * Sets the engine's storage policy for this filter: the filter runs on
         * {@code idem.toBuilder().storagePolicy(policy)}, so one policy decides which handler responses
         * are stored. A route may set its own ({@link RoutePolicy#withStoragePolicy}); a route's own
         * {@link Idem} ({@link RoutePolicy#withIdem}) or runner keeps its engine's. Default: the engine's
         * own ({@link Idem#storagePolicy()}, by default {@link StoragePolicy#defaults()}: all but 408,
         * 409, 425, 429 and 5xx).
         */
        public Builder storagePolicy(StoragePolicy storagePolicy) {
            this.storagePolicy = Objects.requireNonNull(storagePolicy, "storagePolicy is null");
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

        public IdempotencyFilter build() {
            return new IdempotencyFilter(this);
        }

        private static int bytes(String name, int value) {
            return RequestBodies.checkLimit(name, value);
        }

        /** Checks an HTTP token (RFC 9110 §5.6.2): a method or a header name. */
        static String token(String what, String value) {
            return HttpAnswers.requireToken(what, value);
        }
    }
}
