package dev.idem.servlet;

import dev.idem.Scope;
import dev.idem.http.RequestScopes;
import dev.idem.servlet.internal.RequestNames;
import jakarta.servlet.http.HttpServletRequest;
import java.security.Principal;
import java.util.Objects;
import java.util.function.Function;

/**
 * The {@link Scope} of a covered request: who asks (principal) and for what (method and route). The
 * same key under another scope is another record, so one principal never sees another's response.
 *
 * <p>The built-in resolvers make the scope {@code "<principal> <METHOD> <route>"}. The principal
 * part names its kind, so that distinct principals never share a scope, whatever their names:
 * <ul>
 * <li>{@code anonymous} — no principal (no user principal, or no credential header);</li>
 * <li>{@code user:<name>} — the user principal's name, percent-encoded (every character outside
 *     visible ASCII, and {@code %}, as the {@code %XX} escapes of its UTF-8 bytes), e.g.
 *     {@code user:alice}, {@code user:John%20Smith}; a name whose encoding is over 128 characters
 *     becomes {@code user-sha256:<hex>} of the name;</li>
 * <li>{@code credential:sha256:<hex>} — the SHA-256 of the credential header's value.</li>
 * </ul>
 * A user named {@code anonymous} is {@code user:anonymous}, and one named after a credential's digest
 * is {@code user:sha256:…}: neither can reach another principal's records. The route defaults to the
 * path within the application (without the context path); a framework may pass a route template
 * ({@code /orders/{id}}) instead. A route that is not 1–256 visible ASCII characters, or that starts
 * with {@code sha256:}, is replaced by its SHA-256 ({@code sha256:<hex>}), which keeps scopes
 * unambiguous and within {@code Scope}'s length limit.
 *
 * <p>Versions before this encoding used the bare name ({@code alice}) and {@code sha256:<hex>} for
 * credentials: records stored under those scopes are not found after an upgrade (see the upgrade note in
 * docs/operations.md). {@code anonymous} is unchanged.
 *
 * <p>Scopes appear in exception messages and metrics, so a resolver must not put secrets in them:
 * {@link #credentialHeader(String)} stores only a digest of the credential. Implementations must be
 * thread-safe and must not read the body.
 */
@FunctionalInterface
public interface ScopeResolver {
    /** The principal part of the scope of a request that has no principal. */
    String ANONYMOUS = RequestNames.ANONYMOUS;

    Scope resolve(HttpServletRequest request);

    /**
     * Principal = {@code user:} and the percent-encoded {@code request.getUserPrincipal().getName()}
     * (an empty name too), or {@value #ANONYMOUS} without a principal (or with one whose name is
     * {@code null}); route = path. The default.
     */
    static ScopeResolver userPrincipal() {
        return userPrincipal(RequestNames::pathWithinApplication);
    }

    /** As {@link #userPrincipal()}, with the route given by {@code route} (e.g. a route template). */
    static ScopeResolver userPrincipal(Function<? super HttpServletRequest, String> route) {
        Objects.requireNonNull(route, "route is null");
        return request -> {
            Principal principal = request.getUserPrincipal();
            String name = principal == null ? null : principal.getName();
            return scope(name == null ? ANONYMOUS : RequestNames.userPrincipal(name), request, route);
        };
    }

    /**
     * Principal = SHA-256 of the value of the credential header {@code headerName} (e.g.
     * {@code Authorization}, {@code X-Api-Key}), as {@code credential:sha256:<hex>}, or
     * {@value #ANONYMOUS} without one (or with an empty one). The credential itself is never stored
     * or shown. Route = path.
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
                    : RequestNames.credentialPrincipal(credential);
            return scope(principal, request, route);
        };
    }

    private static Scope scope(String principal, HttpServletRequest request, Function<? super HttpServletRequest, String> route) {
        return RequestScopes.scope(principal, request.getMethod(), route.apply(request));
    }
}
