package dev.idem.servlet;

import dev.idem.Scope;
import dev.idem.servlet.internal.RequestNames;
import jakarta.servlet.http.HttpServletRequest;
import java.security.Principal;
import java.util.Objects;
import java.util.function.Function;

/**
 * The {@link Scope} of a covered request: who asks (principal) and for what (method and route). The
 * same key under another scope is another record, so one principal never sees another's response.
 *
 * <p>The built-in resolvers make the operation {@code "<METHOD> <route>"}. The route defaults to the
 * path within the application (without the context path); a framework may pass a route template
 * ({@code /orders/{id}}) instead. A principal or route that is not 1–128 (principal) or 1–256
 * (route) visible ASCII characters is replaced by its SHA-256 ({@code sha256:<hex>}), which keeps
 * scopes unambiguous and within {@code Scope}'s length limit.
 *
 * <p>Scopes appear in exception messages and metrics, so a resolver must not put secrets in them:
 * {@link #credentialHeader(String)} stores only a digest of the credential. Implementations must be
 * thread-safe and must not read the body.
 */
@FunctionalInterface
public interface ScopeResolver {
    /** The principal of a request that has none. */
    String ANONYMOUS = "anonymous";

    Scope resolve(HttpServletRequest request);

    /** Principal = {@code request.getUserPrincipal().getName()}, or {@value #ANONYMOUS}; route = path. The default. */
    static ScopeResolver userPrincipal() {
        return userPrincipal(RequestNames::pathWithinApplication);
    }

    /** As {@link #userPrincipal()}, with the route given by {@code route} (e.g. a route template). */
    static ScopeResolver userPrincipal(Function<? super HttpServletRequest, String> route) {
        Objects.requireNonNull(route, "route is null");
        return request -> {
            Principal principal = request.getUserPrincipal();
            String name = principal == null ? null : principal.getName();
            return scope(name == null || name.isEmpty() ? ANONYMOUS : name, request, route);
        };
    }

    /**
     * Principal = SHA-256 of the value of the credential header {@code headerName} (e.g.
     * {@code Authorization}, {@code X-Api-Key}), as {@code sha256:<hex>}, or {@value #ANONYMOUS}
     * without one. The credential itself is never stored or shown. Route = path.
     *
     * @throws IllegalArgumentException if {@code headerName} is not an HTTP token
     */
    static ScopeResolver credentialHeader(String headerName) {
        return credentialHeader(headerName, RequestNames::pathWithinApplication);
    }

    /** As {@link #credentialHeader(String)}, with the route given by {@code route}. */
    static ScopeResolver credentialHeader(String headerName, Function<? super HttpServletRequest, String> route) {
        String header = IdempotencyFilter.Builder.token("credential header name", headerName);
        Objects.requireNonNull(route, "route is null");
        return request -> {
            String credential = request.getHeader(header);
            String principal = credential == null || credential.isEmpty()
                    ? ANONYMOUS
                    : "sha256:" + RequestNames.sha256Hex(credential);
            return scope(principal, request, route);
        };
    }

    private static Scope scope(String principal, HttpServletRequest request, Function<? super HttpServletRequest, String> route) {
        String path = route.apply(request);
        if (path == null || path.isEmpty()) {
            throw new IllegalStateException("the route function returned " + (path == null ? "null" : "an empty route"));
        }
        return Scope.of(RequestNames.scopePart(principal, 128), request.getMethod() + " " + RequestNames.scopePart(path, 256));
    }
}
