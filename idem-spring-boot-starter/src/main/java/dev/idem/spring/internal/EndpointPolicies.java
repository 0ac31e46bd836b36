package dev.idem.spring.internal;

import dev.idem.Idem;
import dev.idem.servlet.RoutePolicy;
import dev.idem.StoragePolicy;
import dev.idem.spring.IdemProperties;
import dev.idem.spring.Idempotent;
import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.env.PropertyResolver;
import org.springframework.web.method.HandlerMethod;

/**
 * The {@link RoutePolicy} of each handler: from its {@link Idempotent} (method, else class), or the
 * default policy. Computed once per handler method, with a per-endpoint {@link Idem} derived from the
 * application's when the annotation changes a setting, its own storage policy when it sets
 * {@code notStored}, and a transactional {@code RequestRunner} for {@code @Idempotent(transactional = true)}.
 */
public final class EndpointPolicies {
    /** The application's engine with the web's storage policy ({@code idem.not-stored-statuses}). */
    private final Idem idem;
    private final IdemProperties properties;
    private final PropertyResolver placeholders;
    private final TransactionalRunners transactionalRunners;
    private final EngineOverrides variants;
    private final Map<HandlerKey, Decided> cache = new ConcurrentHashMap<>();
    /** The methods the default policy covers ({@code idem.methods}); an explicit annotation covers every unsafe one. */
    private final Set<String> defaultMethods;

    /** The completable handlers (Spring MVC); null on WebFlux, which refuses {@code completable = true}. */
    private final CompletableRoutes completableRoutes;

    public EndpointPolicies(Idem idem, IdemProperties properties, PropertyResolver placeholders,
                            TransactionalRunners transactionalRunners) {
        this(idem, properties, placeholders, transactionalRunners, null);
    }

    public EndpointPolicies(Idem idem, IdemProperties properties, PropertyResolver placeholders,
                            TransactionalRunners transactionalRunners, CompletableRoutes completableRoutes) {
        Objects.requireNonNull(idem, "idem is null");
        this.properties = Objects.requireNonNull(properties, "properties is null");
        this.idem = webEngine(idem, properties);
        this.completableRoutes = completableRoutes;
        this.placeholders = Objects.requireNonNull(placeholders, "placeholders is null");
        this.transactionalRunners = Objects.requireNonNull(transactionalRunners, "transactionalRunners is null");
        this.variants = new EngineOverrides(properties, placeholders);
        this.defaultMethods = Set.copyOf(properties.getMethods());
    }

    /**
     * The engine the filter runs an endpoint on unless its policy has its own: the application's with
     * {@code idem.not-stored-statuses} deciding storage.
     */
    public Idem engine() {
        return idem;
    }

    /**
     * What the filter (and the completer) runs on: the application's engine with
     * {@code idem.not-stored-statuses} deciding storage, so an endpoint's variant or transactional
     * runner keeps that one policy unless it sets its own.
     */
    public static Idem webEngine(Idem idem, IdemProperties properties) {
        return idem.toBuilder().storagePolicy(properties.storagePolicy()).build();
    }

    /** Methods that change nothing (RFC 9110 §9.2.1): never covered, and an {@code @Idempotent} on a handler of one is refused. */
    public static final Set<String> SAFE_METHODS = Set.of("GET", "HEAD", "OPTIONS", "TRACE");

    private record HandlerKey(Class<?> type, Method method) {
    }

    /** A handler's policy, and where it came from: its method's annotation, its class's, or the default. */
    private record Decided(RoutePolicy policy, boolean onMethod, boolean explicit) {
    }

    /**
     * The policy of a request of {@code httpMethod} to {@code handler}: an {@code @Idempotent} covers
     * its handler for every method that is not safe (POST, PUT, PATCH, DELETE, …); the default policy
     * covers only {@code idem.methods}; a safe method is never covered. {@code functional}: the handler
     * is a functional endpoint's {@code HandlerFunction} (Spring MVC's or WebFlux's), which carries no
     * annotation. Shared by both stacks' resolvers.
     */
    public RoutePolicy forRequest(Object handler, boolean functional, String httpMethod) {
        if (SAFE_METHODS.contains(httpMethod) && !defaultMethods.contains(httpMethod)) {
            return RoutePolicy.notCovered();
        }
        if (handler instanceof HandlerMethod method) {
            Decided decided = decide(method);
            if (decided.explicit()) {
                return SAFE_METHODS.contains(httpMethod) ? RoutePolicy.notCovered() : decided.policy();
            }
            return defaultMethods.contains(httpMethod) ? decided.policy() : RoutePolicy.notCovered();
        }
        return defaultMethods.contains(httpMethod) ? forHandler(handler, functional) : RoutePolicy.notCovered();
    }

    /**
     * Checks a handler method at start-up, with the HTTP methods its mapping declares (empty: any):
     * {@code @Idempotent} on the method of a handler for a safe method (GET, HEAD, OPTIONS, TRACE) is
     * refused, since such a request must change nothing and the filter never covers it.
     *
     * @throws IllegalStateException naming the handler
     */
    public void check(HandlerMethod handler, Set<String> httpMethods) {
        Decided decided = decide(handler);
        if (!decided.onMethod()) {
            return; // a class-level @Idempotent covers the class's unsafe handlers only; its GETs pass through
        }
        for (String httpMethod : httpMethods) {
            if (SAFE_METHODS.contains(httpMethod)) {
                throw new IllegalStateException("@Idempotent on " + handler.getBeanType().getName() + "#"
                        + handler.getMethod().getName() + ": a " + httpMethod + " handler is safe and never covered by the"
                        + " idempotency filter; remove the annotation, or map the handler to POST, PUT, PATCH or DELETE");
            }
        }
    }

    /** The policy of a handler found by a {@code HandlerMapping}; not covered for handlers idem cannot read. */
    private RoutePolicy forHandler(Object handler, boolean functional) {
        if (handler instanceof HandlerMethod method) {
            return forMethod(method);
        }
        if (functional) {
            // Functional endpoints carry no annotation: covered only when everything is.
            return properties.getDefaultPolicy() == IdemProperties.DefaultPolicy.ALL ? RoutePolicy.required() : RoutePolicy.notCovered();
        }
        return RoutePolicy.notCovered(); // static resources, default servlet, ...
    }

    /**
     * The policy of one handler method, computed on first use and cached.
     *
     * @throws IllegalStateException if its {@link Idempotent} has a value that does not parse or fit
     */
    public RoutePolicy forMethod(HandlerMethod handler) {
        return decide(handler).policy();
    }

    /** The {@link Idempotent} that governs a handler method: its own, else its class's; null if neither has one. */
    static Idempotent annotationOf(Class<?> type, Method method) {
        Idempotent annotation = AnnotatedElementUtils.findMergedAnnotation(method, Idempotent.class);
        return annotation != null ? annotation : AnnotatedElementUtils.findMergedAnnotation(type, Idempotent.class);
    }

    private Decided decide(HandlerMethod handler) {
        return cache.computeIfAbsent(new HandlerKey(handler.getBeanType(), handler.getMethod()), this::compute);
    }

    private Decided compute(HandlerKey key) {
        boolean onMethod = AnnotatedElementUtils.findMergedAnnotation(key.method(), Idempotent.class) != null;
        Idempotent annotation = annotationOf(key.type(), key.method());
        if (annotation == null) {
            return new Decided(properties.getDefaultPolicy() == IdemProperties.DefaultPolicy.ALL ? RoutePolicy.required()
                    : RoutePolicy.notCovered(), false, false);
        }
        return new Decided(annotated(annotation, key), onMethod, true);
    }

    private RoutePolicy annotated(Idempotent annotation, HandlerKey key) {
        String where = key.type().getName() + "#" + key.method().getName();
        RoutePolicy policy = annotation.required() ? RoutePolicy.required() : RoutePolicy.optional();
        if (annotation.transactional()) {
            requireNoEngineOnlySettings(annotation, where);
        }
        StoragePolicy storage = storagePolicy(annotation.notStored(), where);
        if (storage != null) {
            policy = policy.withStoragePolicy(storage);
        }
        Idem variant = variant(annotation, where);
        if (annotation.completable()) {
            return completable(variant == null ? policy : policy.withIdem(variant), annotation, key, where);
        }
        if (annotation.transactional()) {
            return policy.withRunner(transactionalRunners.runner(variant == null ? idem : variant, where));
        }
        return variant == null ? policy : policy.withIdem(variant);
    }

    /** {@code completable = true}: the route stores its request for the completer, under its operation's name. */
    private RoutePolicy completable(RoutePolicy policy, Idempotent annotation, HandlerKey key, String where) {
        if (completableRoutes == null) {
            throw new IllegalStateException("@Idempotent on " + where + ": completable = true is for Spring MVC handlers, whose stored"
                    + " request the completer runs through the DispatcherServlet; remove it");
        }
        if (annotation.transactional()) {
            throw new IllegalStateException("@Idempotent on " + where + ": completable = true does not apply with transactional = true"
                    + " (a transactional endpoint's effects roll back with a crash, and it has no phases to resume); remove one");
        }
        String name = completableRoutes.operationName(key.type(), key.method());
        return policy.withCompletion(completableRoutes.registry().orElseThrow(), name);
    }

    /** The endpoint's own storage policy, or null for the filter's ({@code idem.not-stored-statuses}). */
    private StoragePolicy storagePolicy(String text, String where) {
        if (text.isEmpty()) {
            return null;
        }
        String resolved = placeholders.resolveRequiredPlaceholders(text).trim();
        try {
            return IdemProperties.parseStoragePolicy(resolved.isEmpty() ? List.of() : Arrays.asList(resolved.split(",", -1)));
        } catch (IllegalArgumentException e) {
            throw new IllegalStateException("@Idempotent on " + where + ": notStored '" + text + "': " + e.getMessage(), e);
        }
    }

    /** Lease, in-flight policy and wait belong to the engine's claim; a transactional claim waits on the row lock. */
    private static void requireNoEngineOnlySettings(Idempotent annotation, String where) {
        String set = !annotation.lease().isEmpty() ? "lease"
                : annotation.inFlight() != Idempotent.InFlight.DEFAULT ? "inFlight"
                : !annotation.maxWait().isEmpty() ? "maxWait" : null;
        if (set != null) {
            throw new IllegalStateException("@Idempotent on " + where + ": " + set + " does not apply with transactional = true"
                    + " (a duplicate waits on the uncommitted claim's row lock, and nothing is renewed); remove it");
        }
    }

    /** The endpoint's own engine, or null when the annotation changes no setting. */
    private Idem variant(Idempotent annotation, String where) {
        EngineOverrides.Settings settings = variants.settings(annotation.lease(), annotation.retention(),
                annotation.inFlight(), annotation.maxWait(), "@Idempotent on " + where);
        return settings.changesNothing() ? null : EngineOverrides.variant(idem, settings, "@Idempotent on " + where);
    }
}
