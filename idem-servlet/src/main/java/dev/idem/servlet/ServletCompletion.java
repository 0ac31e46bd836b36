package dev.idem.servlet;

import dev.idem.CompletableOperation;
import dev.idem.Execution;
import dev.idem.StoredResponse;
import dev.idem.http.RequestBodies;
import dev.idem.http.StoredRequest;
import dev.idem.servlet.internal.BufferedRequest;
import dev.idem.servlet.internal.CapturingResponse;
import dev.idem.servlet.internal.MemoryRequest;
import dev.idem.servlet.internal.MemoryResponse;
import jakarta.servlet.Servlet;
import jakarta.servlet.ServletConfig;
import jakarta.servlet.ServletContext;
import jakarta.servlet.http.HttpServletRequest;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Enumeration;
import java.util.List;
import java.util.Objects;

/**
 * Completion of the HTTP routes opted in with {@link RoutePolicy#withCompletion}: the
 * {@link CompletableOperation} a {@link dev.idem.Completer} runs for such a route's abandoned record,
 * which dispatches the stored request to a servlet <em>inside the application</em> (for Spring MVC its
 * {@code DispatcherServlet}) — never by an HTTP call to itself.
 *
 * <pre>{@code
 * OperationRegistry operations = OperationRegistry.builder()
 *         .register("http:POST:/payments", StoredRequest.CODEC, ServletCompletion.of(servlet, idem.maxResponseBytes()))
 *         .build();
 * }</pre>
 *
 * <p>The servlet gets an in-memory request rebuilt from the {@link StoredRequest} (method, path and
 * query with their parameters, the kept headers, the body, dispatcher type {@code REQUEST}; no
 * session, principal, cookies, multipart or asynchronous processing) and a capturing response. The
 * request attribute {@link IdempotencyFilter#EXECUTION_ATTRIBUTE} holds the completer's
 * {@link Execution}, so a handler that runs its effects as phases through
 * {@link IdempotencyFilter#execution} gets the finished ones' stored results and runs the rest. What
 * it answers is stored under the filter's rules (the handler's headers, {@code Idempotent-Store: no},
 * the engine's storage policy and response cap). The filters in front of the servlet do not run.
 */
public final class ServletCompletion implements CompletableOperation<StoredRequest> {
    private final Servlet servlet;
    private final int maxResponseBytes;

    private ServletCompletion(Servlet servlet, int maxResponseBytes) {
        this.servlet = servlet;
        this.maxResponseBytes = maxResponseBytes;
    }

    /**
     * Runs stored requests through {@code servlet}, in the servlet context of its
     * {@link Servlet#getServletConfig() config}: the servlet must have been initialised by its
     * container when a completer runs a request (else the run fails, and the record waits for the
     * next attempt), so load it on startup.
     *
     * @param maxResponseBytes the engine's response cap ({@link dev.idem.Idem#maxResponseBytes()}): the
     *                         capture holds no more of the body in memory than is stored
     */
    public static ServletCompletion of(Servlet servlet, int maxResponseBytes) {
        Objects.requireNonNull(servlet, "servlet is null");
        return new ServletCompletion(servlet, RequestBodies.checkLimit("maxResponseBytes", maxResponseBytes));
    }

    @Override
    public StoredResponse run(Execution execution, StoredRequest stored) throws Exception {
        ServletConfig config = servlet.getServletConfig();
        ServletContext context = config == null ? null : config.getServletContext();
        if (context == null) {
            throw new IllegalStateException("the servlet " + servlet.getClass().getName() + " is not initialised yet; load it on"
                    + " startup (load-on-startup) so that a completer can dispatch to it");
        }
        BufferedRequest request = new BufferedRequest(new MemoryRequest(stored, context), stored.body());
        request.setAttribute(IdempotencyFilter.EXECUTION_ATTRIBUTE, execution);
        try (CapturingResponse capture = new CapturingResponse(new MemoryResponse(), maxResponseBytes)) {
            servlet.service(request, capture);
            return capture.toStored();
        }
    }

    /**
     * What a completable route stores of a live request: its method, its path within the application
     * as sent with the query, the values of the {@code keptHeaders} it has, and the body.
     *
     * @throws IllegalArgumentException if a part breaks a rule of {@link StoredRequest#of}
     */
    static StoredRequest storedRequest(HttpServletRequest request, List<String> keptHeaders, byte[] body) {
        String uri = request.getRequestURI();
        String contextPath = request.getContextPath();
        String path = contextPath != null && !contextPath.isEmpty() && uri.startsWith(contextPath) ? uri.substring(contextPath.length()) : uri;
        if (path.isEmpty()) {
            path = "/";
        }
        String query = request.getQueryString();
        List<StoredRequest.Header> headers = new ArrayList<>();
        for (String name : keptHeaders) {
            Enumeration<String> values = request.getHeaders(name);
            for (String value : values == null ? List.<String>of() : Collections.list(values)) {
                headers.add(new StoredRequest.Header(name, value));
            }
        }
        return StoredRequest.of(request.getMethod(), query == null ? path : path + "?" + query, headers, body);
    }

    @Override
    public String toString() {
        return "ServletCompletion[" + servlet.getClass().getName() + "]";
    }
}
