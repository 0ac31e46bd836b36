package dev.idem.webflux;

import dev.idem.Scope;
import dev.idem.http.HttpAnswers;
import dev.idem.http.RequestScopes;
import dev.idem.webflux.internal.ExchangeNames;
import java.security.Principal;
import java.util.Objects;
import org.springframework.web.server.ServerWebExchange;
import reactor.core.publisher.Mono;

/**
 * The {@link Scope} of a covered exchange: who asks (principal) and for what (method and route),
 * {@code "<principal> <METHOD> <route>"} as idem-http's {@link RequestScopes} makes it — the same scope
 * the Servlet filter gives the same request. The same key under another scope is another record, so
 * one principal never sees another's response. The route is the exchange's {@link #ROUTE_ATTRIBUTE}
 * when set (the handler's URL pattern, {@code /orders/{id}/pay}, so one endpoint is one operation
 * whatever its path variables), else the path within the application.
 *
 * <p>Scopes appear in exception messages and metrics, so a resolver must not put secrets in them:
 * {@link #credentialHeader(String)} keeps only a digest. Implementations must be thread-safe, must
 * not block and must not read the body.
 */
@FunctionalInterface
public interface ExchangeScopeResolver {
    /**
     * Exchange attribute holding the route to scope by, a non-empty {@code String}: set by whatever found the
     * handler (the Spring Boot starter, {@link IdempotentRouteFilter}) before the scope is resolved.
     */
    String ROUTE_ATTRIBUTE = ExchangeScopeResolver.class.getName() + ".route";

    /** The scope; an empty Mono is an error. */
    Mono<Scope> resolve(ServerWebExchange exchange);

    /**
     * Principal = {@code user:} and the percent-encoded name of {@link ServerWebExchange#getPrincipal()},
     * or {@value RequestScopes#ANONYMOUS} without one. The default.
     */
    static ExchangeScopeResolver principal() {
        return exchange -> exchange.getPrincipal()
                .map(Principal::getName)
                .map(RequestScopes::userPrincipal)
                .defaultIfEmpty(RequestScopes.ANONYMOUS)
                .map(principal -> scope(principal, exchange));
    }

    /**
     * Principal = {@code credential:sha256:} and the SHA-256 of the value of the credential header
     * {@code headerName} (e.g. {@code Authorization}, {@code X-Api-Key}), or {@value RequestScopes#ANONYMOUS}
     * without one (or with an empty one). The credential itself is never stored or shown.
     *
     * @throws IllegalArgumentException if {@code headerName} is not an HTTP token
     */
    static ExchangeScopeResolver credentialHeader(String headerName) {
        String header = HttpAnswers.requireToken("credential header name", headerName);
        return exchange -> Mono.fromSupplier(() -> {
            String credential = exchange.getRequest().getHeaders().getFirst(header);
            String principal = credential == null || credential.isEmpty()
                    ? RequestScopes.ANONYMOUS
                    : RequestScopes.credentialPrincipal(credential);
            return scope(principal, exchange);
        });
    }

    private static Scope scope(String principal, ServerWebExchange exchange) {
        Objects.requireNonNull(exchange, "exchange is null");
        return RequestScopes.scope(principal, exchange.getRequest().getMethod().name(), route(exchange));
    }

    /** The exchange's {@link #ROUTE_ATTRIBUTE} if set, else the path within the application. */
    private static String route(ServerWebExchange exchange) {
        Object route = exchange.getAttributes().get(ROUTE_ATTRIBUTE);
        return route instanceof String text && !text.isEmpty() ? text : ExchangeNames.pathWithinApplication(exchange.getRequest());
    }
}
