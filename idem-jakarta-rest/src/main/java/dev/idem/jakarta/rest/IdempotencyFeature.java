package dev.idem.jakarta.rest;

import dev.idem.Execution;
import dev.idem.Idem;
import dev.idem.http.HttpAnswers;
import dev.idem.http.RequestBodies;
import dev.idem.jakarta.rest.internal.DeferredFilter;
import dev.idem.jakarta.rest.internal.IdempotencyFilter;
import dev.idem.jakarta.rest.internal.RouteTemplates;
import dev.idem.jakarta.rest.internal.UnhandledFailureMapper;
import dev.idem.spi.Arguments;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.DynamicFeature;
import jakarta.ws.rs.container.ResourceInfo;
import jakarta.ws.rs.core.Feature;
import jakarta.ws.rs.core.FeatureContext;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * Makes the {@link Idempotent} resource methods of a Jakarta REST application idempotent under a
 * client-chosen key, with the HTTP semantics of idem-http (the project's {@code docs/http.md}; the
 * same answers, fingerprints and scopes as the Servlet filter; the scope names the resource method's
 * route template, see {@link ScopeResolver#route}). Register one instance:
 * {@code resourceConfig.register(feature)} on Jersey, among {@code Application.getSingletons()} on
 * RESTEasy.
 *
 * <p>Per covered request: a request filter (after authentication, at {@link Priorities#USER}) reads the
 * key, buffers the entity up to {@link Builder#maxRequestBytes} (413 beyond) and claims the key with
 * {@link Idem#start}; a replay, a request in progress (409), a mismatch (422) or a store failure (503)
 * is answered there and the method does not run. The method's response — status, stored headers and
 * the entity as serialized — is captured by a response filter and a writer interceptor and completes
 * the execution under the engine's storage policy; an exception no mapper handles fails it, so the key
 * is given back. Resources must be synchronous (no {@code @Suspended AsyncResponse}).
 *
 * <p>Immutable and thread-safe; made by {@link #builder(Idem)}.
 */
public final class IdempotencyFeature implements Feature {
    /** The key header of the IETF draft and Stripe. */
    public static final String DEFAULT_HEADER_NAME = "Idempotency-Key";
    /** Default of the request body cap: 1 MiB. (The response cap is the engine's.) */
    public static final int DEFAULT_MAX_BODY_BYTES = 1024 * 1024;
    /** Default {@code Retry-After} of the answers to store and lease failures: 2 seconds. */
    public static final Duration DEFAULT_FAILURE_RETRY_AFTER = Duration.ofSeconds(2);
    /** Request property holding the {@link Execution} while a covered resource method runs. */
    public static final String EXECUTION_PROPERTY = IdempotencyFilter.EXECUTION_PROPERTY;
    /**
     * Request property holding the covered method's route template ({@code /orders/{id}}) while the
     * scope is resolved; absent when the resource classes cannot tell it (see {@link ScopeResolver#route}).
     */
    public static final String ROUTE_PROPERTY = IdempotencyFilter.ROUTE_PROPERTY;

    private final IdempotencyFilter.Settings settings;

    private IdempotencyFeature(Builder b) {
        this.settings = new IdempotencyFilter.Settings(b.idem, b.headerName, b.maxRequestBytes, b.scopes, b.failureRetryAfter);
    }

    /** A builder for a feature running covered requests through {@code idem}. */
    public static Builder builder(Idem idem) {
        return new Builder(idem);
    }

    /**
     * The execution of the covered request, to run {@linkplain Execution#phase phases} in; empty
     * outside a covered request.
     */
    public static Optional<Execution> execution(ContainerRequestContext request) {
        Object value = request.getProperty(EXECUTION_PROPERTY);
        return value instanceof Execution execution ? Optional.of(execution) : Optional.empty();
    }

    @Override
    public boolean configure(FeatureContext context) {
        context.register(new Binder(this));
        context.register(IdempotencyFilter.responseFilter(settings), IdempotencyFilter.RESPONSE_FILTER_PRIORITY);
        // Ends the execution of a covered request whose exception no mapper of the application handles.
        context.register(new UnhandledFailureMapper());
        return true;
    }

    /**
     * Binds to {@code resource}, if it is {@link Idempotent} (the method's annotation winning over its
     * class's), a filter that takes its feature from {@code feature} at its first request. For a runtime
     * that configures dynamic features from its own registry, before the application's engine can be
     * built (Quarkus REST, at static init, through idem-quarkus); the caller registers the feature's
     * mapper of last resort itself. Does nothing for a method without the annotation.
     */
    public static void bindDeferred(ResourceInfo resource, FeatureContext context, Supplier<IdempotencyFeature> feature) {
        Objects.requireNonNull(feature, "feature is null");
        idempotent(resource).ifPresent(idempotent -> {
            String route = RouteTemplates.of(resource); // now: the runtime's ResourceInfo is for configuring
            context.register(new DeferredFilter(() -> new IdempotencyFilter(feature.get().settings, idempotent.keyRequired(), route)),
                    Priorities.USER);
        });
    }

    private static Optional<Idempotent> idempotent(ResourceInfo resource) {
        Method method = resource.getResourceMethod();
        Idempotent idempotent = method == null ? null : method.getAnnotation(Idempotent.class);
        if (idempotent == null && resource.getResourceClass() != null) {
            idempotent = resource.getResourceClass().getAnnotation(Idempotent.class);
        }
        return Optional.ofNullable(idempotent);
    }

    /** Binds a filter to each {@link Idempotent} resource method, with that method's settings. */
    private static final class Binder implements DynamicFeature {
        private final IdempotencyFeature feature;

        Binder(IdempotencyFeature feature) {
            this.feature = feature;
        }

        @Override
        public void configure(ResourceInfo resource, FeatureContext context) {
            idempotent(resource).ifPresent(idempotent ->
                    context.register(new IdempotencyFilter(feature.settings, idempotent.keyRequired(), RouteTemplates.of(resource)),
                            Priorities.USER));
        }
    }

    @Override
    public String toString() {
        return "IdempotencyFeature[" + settings + "]";
    }

    /**
     * Collects the feature's settings; each setter validates its value and names it in the error.
     * {@link #build()} returns an immutable feature; the builder can be reused.
     */
    public static final class Builder {
        private final Idem idem;
        private String headerName = DEFAULT_HEADER_NAME;
        private int maxRequestBytes = DEFAULT_MAX_BODY_BYTES;
        private ScopeResolver scopes = ScopeResolver.userPrincipal();
        private Duration failureRetryAfter = DEFAULT_FAILURE_RETRY_AFTER;

        private Builder(Idem idem) {
            this.idem = Objects.requireNonNull(idem, "idem is null");
        }

        /** The key header. Default {@value IdempotencyFeature#DEFAULT_HEADER_NAME}. */
        public Builder headerName(String headerName) {
            this.headerName = token("headerName", headerName);
            return this;
        }

        /** Larger request entities are answered 413 without running anything. Default 1 MiB. */
        public Builder maxRequestBytes(int maxRequestBytes) {
            this.maxRequestBytes = RequestBodies.checkLimit("maxRequestBytes", maxRequestBytes);
            return this;
        }

        /** Default {@link ScopeResolver#userPrincipal()}; {@link ScopeResolver#credentialHeader} scopes by an API key. */
        public Builder scopeResolver(ScopeResolver resolver) {
            this.scopes = Objects.requireNonNull(resolver, "scopeResolver is null");
            return this;
        }

        /** The {@code Retry-After} of the answers to store failures (503) and lost leases (409). Default 2 s. */
        public Builder failureRetryAfter(Duration failureRetryAfter) {
            this.failureRetryAfter = Arguments.positive("failureRetryAfter", failureRetryAfter);
            return this;
        }

        public IdempotencyFeature build() {
            return new IdempotencyFeature(this);
        }

        static String token(String what, String value) {
            return HttpAnswers.requireToken(what, value);
        }
    }
}
