package dev.idem.servlet.internal;

import dev.idem.http.RequestScopes;
import jakarta.servlet.http.HttpServletRequest;

/** How the filter names a request (the naming rules themselves are idem-http's {@link RequestScopes}):'s parts in scopes and fingerprints. */
public final class RequestNames {
    private RequestNames() {
    }

    /**
     * The path within the application: servlet path plus path info, so without the context path,
     * decoded, and without path parameters such as {@code ;jsessionid=…} (which would split one
     * logical request into several scopes). Never empty.
     */
    public static String pathWithinApplication(HttpServletRequest request) {
        String servletPath = request.getServletPath();
        String pathInfo = request.getPathInfo();
        String path = (servletPath == null ? "" : servletPath) + (pathInfo == null ? "" : pathInfo);
        return path.isEmpty() ? "/" : path;
    }

    /** The principal part of the scope of a request without a principal. */
    public static final String ANONYMOUS = RequestScopes.ANONYMOUS;
    /** The longest principal part made of a name; a longer one is digested. */
    public static final int MAX_PRINCIPAL_LENGTH = RequestScopes.MAX_PRINCIPAL_LENGTH;

    /** See {@link RequestScopes#userPrincipal}. */
    public static String userPrincipal(String name) {
        return RequestScopes.userPrincipal(name);
    }

    /** See {@link RequestScopes#credentialPrincipal}. */
    public static String credentialPrincipal(String credential) {
        return RequestScopes.credentialPrincipal(credential);
    }

    /** See {@link RequestScopes#percentEncode}. */
    public static String percentEncode(String value) {
        return RequestScopes.percentEncode(value);
    }

    /** See {@link RequestScopes#scopePart}. */
    public static String scopePart(String value, int maxLength) {
        return RequestScopes.scopePart(value, maxLength);
    }

    /** See {@link RequestScopes#sha256Hex}. */
    public static String sha256Hex(String value) {
        return RequestScopes.sha256Hex(value);
    }
}
