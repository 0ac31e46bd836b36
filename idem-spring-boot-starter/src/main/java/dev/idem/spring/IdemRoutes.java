package dev.idem.spring;

import jakarta.servlet.http.HttpServletRequest;

/**
 * The route of a covered request, as the starter puts it in the {@link dev.idem.Scope}: the handler's
 * URL pattern ({@code /orders/{id}/pay}), so one endpoint is one operation whatever its path
 * variables. A custom {@code ScopeResolver} bean can use {@link #route(HttpServletRequest)} too.
 */
public final class IdemRoutes {
    /** Request attribute holding the matched handler's URL pattern, set while the filter resolves the route. */
    public static final String ROUTE_ATTRIBUTE = IdemRoutes.class.getName() + ".route";

    private IdemRoutes() {
    }

    /**
     * The handler's URL pattern when the starter's route resolver found one, else the path within the
     * application (servlet path and path info, without the context path).
     */
    public static String route(HttpServletRequest request) {
        Object pattern = request.getAttribute(ROUTE_ATTRIBUTE);
        if (pattern instanceof String text && !text.isEmpty()) {
            return text;
        }
        String servletPath = request.getServletPath();
        String pathInfo = request.getPathInfo();
        String path = (servletPath == null ? "" : servletPath) + (pathInfo == null ? "" : pathInfo);
        return path.isEmpty() ? "/" : path;
    }
}
