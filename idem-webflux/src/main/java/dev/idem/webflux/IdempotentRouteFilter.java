package dev.idem.webflux;

import java.util.Objects;
import java.util.Set;
import org.springframework.web.reactive.function.server.HandlerFilterFunction;
import org.springframework.web.reactive.function.server.HandlerFunction;
import org.springframework.web.reactive.function.server.RouterFunctions;
import org.springframework.web.reactive.function.server.ServerRequest;
import org.springframework.web.reactive.function.server.ServerResponse;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.util.pattern.PathPattern;
import reactor.core.publisher.Mono;

/**
 * Makes the routes of a functional {@code RouterFunction} idempotent under the {@code Idempotency-Key}
 * header, with an {@link IdempotencyWebFilter}'s settings and its very flow (key, body, fingerprint,
 * scope, claim, capture, store, replay) — only where it is applied, whatever the filter's own routes:
 *
 * <pre>{@code
 * RouterFunction<ServerResponse> routes = RouterFunctions.route()
 *         .POST("/payments", payments::pay)
 *         .filter(IdempotentRouteFilter.of(idemFilter))
 *         .build();
 * }</pre>
 *
 * A request of a safe method (GET, HEAD, OPTIONS, TRACE) passes through: it changes nothing. The
 * scope's route is the matched route pattern ({@code /payments/{id}}). The handler's
 * {@code ServerResponse} is written into the filter's capture and sent once stored, so the handler
 * runs at most once per key; an exchange the filter already took on (also registered as a
 * {@code WebFilter} covering the path) is not taken on twice.
 */
public final class IdempotentRouteFilter implements HandlerFilterFunction<ServerResponse, ServerResponse> {
    private static final Set<String> SAFE_METHODS = Set.of("GET", "HEAD", "OPTIONS", "TRACE");

    private final IdempotencyWebFilter filter;
    private final ExchangePolicy policy;

    private IdempotentRouteFilter(IdempotencyWebFilter filter, ExchangePolicy policy) {
        this.filter = Objects.requireNonNull(filter, "filter is null");
        this.policy = Objects.requireNonNull(policy, "policy is null");
    }

    /** The routes it filters are idempotent with {@code filter}'s settings; the key is required. */
    public static IdempotentRouteFilter of(IdempotencyWebFilter filter) {
        return new IdempotentRouteFilter(filter, ExchangePolicy.required());
    }

    /**
     * The routes it filters run under {@code policy} ({@link ExchangePolicy#optional()}, a variant
     * engine) with {@code filter}'s settings.
     */
    public static IdempotentRouteFilter of(IdempotencyWebFilter filter, ExchangePolicy policy) {
        return new IdempotentRouteFilter(filter, policy);
    }

    @Override
    public Mono<ServerResponse> filter(ServerRequest request, HandlerFunction<ServerResponse> next) {
        if (!policy.covered() || SAFE_METHODS.contains(request.method().name())) {
            return next.handle(request);
        }
        // The response this returns writes nothing of its own: its write function runs the filter's flow,
        // whose chain hands the handler a request over the buffered body and writes its response into the capture.
        return ServerResponse.ok().build((exchange, context) -> {
            setRoute(exchange);
            return filter.apply(policy, exchange, inner -> next.handle(ServerRequest.create(inner, request.messageReaders()))
                    .flatMap(response -> response.writeTo(inner, context)));
        });
    }

    private static void setRoute(ServerWebExchange exchange) {
        if (exchange.getAttribute(RouterFunctions.MATCHING_PATTERN_ATTRIBUTE) instanceof PathPattern pattern) {
            exchange.getAttributes().putIfAbsent(ExchangeScopeResolver.ROUTE_ATTRIBUTE, pattern.getPatternString());
        }
    }

    @Override
    public String toString() {
        return "IdempotentRouteFilter[" + policy + ", " + filter + "]";
    }
}
