package dev.idem.webflux.internal;

import org.springframework.http.server.PathContainer;
import org.springframework.http.server.reactive.ServerHttpRequest;

/** How the filter names a request's path in scopes and fingerprints. */
public final class ExchangeNames {
    private ExchangeNames() {
    }

    /**
     * The path within the application (without the context path), decoded, and without path
     * parameters such as {@code ;jsessionid=…}: the path the Servlet filter names for the same
     * request, so one request has one scope and one fingerprint on either stack. Never empty.
     */
    public static String pathWithinApplication(ServerHttpRequest request) {
        StringBuilder path = new StringBuilder();
        for (PathContainer.Element element : request.getPath().pathWithinApplication().elements()) {
            path.append(element instanceof PathContainer.PathSegment segment ? segment.valueToMatch() : element.value());
        }
        return path.isEmpty() ? "/" : path.toString();
    }
}
