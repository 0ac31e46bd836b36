package dev.idem.jakarta.rest;

import dev.idem.Scope;
import dev.idem.http.RequestScopes;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.core.PathSegment;
import java.security.Principal;

/**
 * The {@link Scope} of a covered request: who asks and for what, {@code "<principal> <METHOD> <route>"},
 * named by idem-http's {@link RequestScopes} as the Servlet filter names it. The built-in resolvers'
 * route is the resource method's route template ({@link #route}: {@code /orders/{id}}, as the Spring
 * starter names a handler's URL pattern), so one key sent to {@code /orders/1} and {@code /orders/2} is
 * one record (and a mismatch: the fingerprint has the actual path), and the meters' {@code operation}
 * tag has one value per route. Implementations must be thread-safe, must not read the entity, and
 * should keep the part after the principal bounded (it is a tag).
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
                    request.getMethod(), route(request));
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
            return RequestScopes.scope(principal, request.getMethod(), route(request));
        };
    }

    /**
     * The covered resource method's route template within the application: its class's and its own
     * {@code @Path} joined, with one leading {@code /}, no trailing one, and parameters without their
     * regular expressions ({@code /orders/{id}}). For a method of a sub-resource (reached through a
     * locator, its class without {@code @Path}) the classes cannot tell the template, and the route is
     * the request's {@link #path} instead; so it is outside a covered request.
     */
    static String route(ContainerRequestContext request) {
        Object route = request.getProperty(IdempotencyFeature.ROUTE_PROPERTY);
        return route instanceof String template ? template : path(request);
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
