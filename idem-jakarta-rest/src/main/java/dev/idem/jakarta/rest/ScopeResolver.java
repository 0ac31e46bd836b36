package dev.idem.jakarta.rest;

import dev.idem.Scope;
import dev.idem.http.RequestScopes;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.core.PathSegment;
import java.security.Principal;

/**
 * The {@link Scope} of a covered request: who asks and for what, {@code "<principal> <METHOD> <path>"},
 * named by idem-http's {@link RequestScopes} exactly as the Servlet filter names it. The path is the
 * request's path within the application ({@link #path}). Implementations must be thread-safe and must
 * not read the entity.
 */
@FunctionalInterface
public interface ScopeResolver {
    Scope resolve(ContainerRequestContext request);

    /**
     * Principal = {@code user:} and the percent-encoded name of the {@code SecurityContext}'s user
     * principal, or {@value RequestScopes#ANONYMOUS} without one. The default.
     */
    static ScopeResolver userPrincipal() {
        return request -> {
            Principal principal = request.getSecurityContext() == null ? null : request.getSecurityContext().getUserPrincipal();
            String name = principal == null ? null : principal.getName();
            return RequestScopes.scope(name == null ? RequestScopes.ANONYMOUS : RequestScopes.userPrincipal(name),
                    request.getMethod(), path(request));
        };
    }

    /**
     * Principal = SHA-256 of the value of the credential header {@code headerName} (e.g.
     * {@code X-Api-Key}), as {@code credential:sha256:<hex>}, or {@value RequestScopes#ANONYMOUS}
     * without one; the credential itself is never stored or shown.
     *
     * @throws IllegalArgumentException if {@code headerName} is not an HTTP token
     */
    static ScopeResolver credentialHeader(String headerName) {
        String header = IdempotencyFeature.Builder.token("credential header name", headerName);
        return request -> {
            String credential = request.getHeaderString(header);
            String principal = credential == null || credential.isEmpty()
                    ? RequestScopes.ANONYMOUS
                    : RequestScopes.credentialPrincipal(credential);
            return RequestScopes.scope(principal, request.getMethod(), path(request));
        };
    }

    /**
     * The request's path within the application (after the application's base URI), decoded, with
     * a leading {@code /} and without matrix parameters: {@code /orders/1}, whatever the runtime's own
     * spelling of {@code UriInfo.getPath()}. The fingerprint uses the same path.
     */
    static String path(ContainerRequestContext request) {
        StringBuilder path = new StringBuilder();
        for (PathSegment segment : request.getUriInfo().getPathSegments(true)) {
            if (!segment.getPath().isEmpty() || path.length() > 0) {
                path.append('/').append(segment.getPath());
            }
        }
        return path.length() == 0 ? "/" : path.toString();
    }
}
