package dev.idem.spring.internal;

import dev.idem.servlet.RoutePolicy;
import dev.idem.webflux.ExchangePolicy;
import dev.idem.webflux.ExchangePolicyResolver;
import dev.idem.webflux.ExchangeScopeResolver;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.springframework.beans.factory.BeanFactoryUtils;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.context.ApplicationContext;
import org.springframework.context.ApplicationContextAware;
import org.springframework.core.annotation.AnnotationAwareOrderComparator;
import org.springframework.web.bind.annotation.RequestMethod;
import org.springframework.web.reactive.HandlerMapping;
import org.springframework.web.reactive.function.server.HandlerFunction;
import org.springframework.web.reactive.result.method.AbstractHandlerMethodMapping;
import org.springframework.web.reactive.result.method.RequestMappingInfo;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.ServerWebExchangeDecorator;
import org.springframework.web.util.pattern.PathPattern;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The WebFlux side of {@link HandlerMappingRoutePolicyResolver}: finds the handler an exchange will
 * reach the way the {@code DispatcherHandler} does (its {@link HandlerMapping} beans in order) and
 * answers with that handler's {@link EndpointPolicies policy} — the same decision, from the same
 * {@code @Idempotent}, as on Spring MVC. The lookup runs on a decorator whose attributes are its own, so
 * the exchange reaches the {@code DispatcherHandler} as it came; for a covered exchange the handler's URL
 * pattern becomes the scope's route ({@link ExchangeScopeResolver#ROUTE_ATTRIBUTE}).
 *
 * <p>An exchange no mapping matches, or whose lookup fails (the {@code DispatcherHandler} answers 404,
 * 405 or 415 itself), is not covered. {@code @Idempotent(transactional = true)} is refused at startup: a
 * JDBC transaction is bound to a thread, and a reactive handler hops between threads.
 */
public final class HandlerMappingExchangePolicyResolver implements ExchangePolicyResolver, ApplicationContextAware,
        SmartInitializingSingleton {
    private final EndpointPolicies policies;
    /** The reactive form of each policy the endpoints have (a handful), made once. */
    private final Map<RoutePolicy, ExchangePolicy> converted = new ConcurrentHashMap<>();
    private ApplicationContext context;
    private volatile List<HandlerMapping> mappings;

    public HandlerMappingExchangePolicyResolver(EndpointPolicies policies) {
        this.policies = Objects.requireNonNull(policies, "policies is null");
    }

    /** For {@link EndpointPolicies}: every {@code @Idempotent(transactional = true)} endpoint fails startup, naming it. */
    public static TransactionalRunners noTransactions() {
        return (idem, where) -> {
            throw new IllegalStateException("@Idempotent(transactional = true) on " + where + " is not supported on Spring WebFlux"
                    + " (a JDBC transaction is bound to one thread, a reactive handler is not); remove transactional");
        };
    }

    @Override
    public void setApplicationContext(ApplicationContext context) {
        this.context = context;
    }

    /** Checks every annotated handler method, so a bad annotation ({@code @Idempotent} on a GET handler) fails startup. */
    @Override
    public void afterSingletonsInstantiated() {
        for (HandlerMapping mapping : mappings()) {
            if (mapping instanceof AbstractHandlerMethodMapping<?> methods) {
                methods.getHandlerMethods().forEach((info, handler) -> {
                    policies.forMethod(handler);
                    policies.check(handler, httpMethods(info));
                });
            }
        }
    }

    private static Set<String> httpMethods(Object mappingInfo) {
        Set<String> names = new LinkedHashSet<>();
        if (mappingInfo instanceof RequestMappingInfo info) {
            for (RequestMethod method : info.getMethodsCondition().getMethods()) {
                names.add(method.name());
            }
        }
        return names;
    }

    @Override
    public Mono<ExchangePolicy> resolve(ServerWebExchange exchange) {
        LocalAttributesExchange lookup = new LocalAttributesExchange(exchange);
        String method = exchange.getRequest().getMethod().name();
        return Flux.fromIterable(mappings())
                .concatMap(mapping -> mapping.getHandler(lookup))
                .next()
                .map(handler -> {
                    RoutePolicy policy = policies.forRequest(handler, handler instanceof HandlerFunction<?>, method);
                    if (policy.covered() && lookup.getAttributes().get(HandlerMapping.BEST_MATCHING_PATTERN_ATTRIBUTE)
                            instanceof PathPattern pattern) {
                        exchange.getAttributes().put(ExchangeScopeResolver.ROUTE_ATTRIBUTE, pattern.getPatternString());
                    }
                    return converted.computeIfAbsent(policy, this::reactive);
                })
                .onErrorResume(e -> Mono.just(ExchangePolicy.notCovered())) // 405, 415, ...: the DispatcherHandler answers it
                .defaultIfEmpty(ExchangePolicy.notCovered());
    }

    /** The policy for the WebFilter: a route's own storage policy becomes a variant of the filter's engine, as on MVC. */
    private ExchangePolicy reactive(RoutePolicy policy) {
        if (!policy.covered()) {
            return ExchangePolicy.notCovered();
        }
        ExchangePolicy base = policy.keyRequired() ? ExchangePolicy.required() : ExchangePolicy.optional();
        if (policy.idem().isPresent()) {
            return base.withIdem(policy.idem().get());
        }
        return policy.storagePolicy()
                .map(storage -> base.withIdem(policies.engine().toBuilder().storagePolicy(storage).build()))
                .orElse(base);
    }

    private List<HandlerMapping> mappings() {
        List<HandlerMapping> loaded = mappings;
        if (loaded == null) {
            if (context == null) {
                return List.of();
            }
            List<HandlerMapping> found = new ArrayList<>(
                    BeanFactoryUtils.beansOfTypeIncludingAncestors(context, HandlerMapping.class, true, false).values());
            AnnotationAwareOrderComparator.sort(found);
            loaded = List.copyOf(found);
            mappings = loaded;
        }
        return loaded;
    }

    @Override
    public String toString() {
        return "HandlerMappingExchangePolicyResolver[@Idempotent]";
    }

    /** Reads see the real exchange's attributes as they were; what the mappings write stays here. */
    static final class LocalAttributesExchange extends ServerWebExchangeDecorator {
        private final Map<String, Object> attributes;

        LocalAttributesExchange(ServerWebExchange exchange) {
            super(exchange);
            this.attributes = new HashMap<>(exchange.getAttributes());
        }

        @Override
        public Map<String, Object> getAttributes() {
            return attributes;
        }
    }
}
