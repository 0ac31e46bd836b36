package dev.idem.servlet;

import jakarta.servlet.DispatcherType;
import jakarta.servlet.Filter;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.security.Principal;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import org.eclipse.jetty.ee10.servlet.FilterHolder;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;

/**
 * An embedded Jetty 12 (ee10) on a free port, with the filter under test on {@code /app/*} and the
 * given servlets. A test filter in front turns an {@code X-Test-User} header (or a URL-encoded
 * {@code X-Test-User-Encoded}) into the request's user principal, as an authentication filter would.
 */
final class TestServer implements AutoCloseable {
    static final String CONTEXT_PATH = "/app";
    static final String TEST_USER_HEADER = "X-Test-User";
    /** As {@link #TEST_USER_HEADER}, URL-encoded (UTF-8), for names a header cannot carry as they are. */
    static final String TEST_USER_ENCODED_HEADER = "X-Test-User-Encoded";

    /** A servlet body as a lambda; any method reaches it. */
    @FunctionalInterface
    interface Handler {
        void handle(HttpServletRequest request, HttpServletResponse response) throws Exception;
    }

    private final Server server;
    private final URI base;

    private TestServer(Server server, URI base) {
        this.server = server;
        this.base = base;
    }

    static TestServer start(Filter filter, Map<String, Handler> routes) throws Exception {
        return start(List.of(), filter, routes);
    }

    /** As {@link #start(Filter, Map)}, with {@code outer} filters registered in front of the filter under test, in order. */
    static TestServer start(List<Filter> outer, Filter filter, Map<String, Handler> routes) throws Exception {
        Server server = new Server();
        ServerConnector connector = new ServerConnector(server);
        connector.setHost("127.0.0.1");
        connector.setPort(0);
        server.addConnector(connector);
        ServletContextHandler context = new ServletContextHandler(CONTEXT_PATH);
        context.addFilter(new FilterHolder(testAuthentication()), "/*", EnumSet.of(DispatcherType.REQUEST));
        for (Filter front : outer) {
            context.addFilter(new FilterHolder(front), "/*", EnumSet.of(DispatcherType.REQUEST));
        }
        context.addFilter(new FilterHolder(filter), "/*", EnumSet.of(DispatcherType.REQUEST));
        routes.forEach((path, handler) -> context.addServlet(new ServletHolder(servlet(handler)), path));
        server.setHandler(context);
        server.start();
        return new TestServer(server, URI.create("http://127.0.0.1:" + connector.getLocalPort() + CONTEXT_PATH));
    }

    /** The URI of {@code pathAndQuery} within the application. */
    URI uri(String pathAndQuery) {
        return URI.create(base + pathAndQuery);
    }

    /** Host and port, for raw-socket requests. */
    URI base() {
        return base;
    }

    @Override
    public void close() throws Exception {
        server.stop();
    }

    private static HttpServlet servlet(Handler handler) {
        return new HttpServlet() {
            private static final long serialVersionUID = 1L;

            @Override
            protected void service(HttpServletRequest request, HttpServletResponse response) throws ServletException, IOException {
                try {
                    handler.handle(request, response);
                } catch (IOException | ServletException | RuntimeException e) {
                    throw e;
                } catch (Exception e) {
                    throw new ServletException(e);
                }
            }
        };
    }

    private static Filter testAuthentication() {
        return (request, response, chain) -> {
            String user = ((HttpServletRequest) request).getHeader(TEST_USER_HEADER);
            String encoded = ((HttpServletRequest) request).getHeader(TEST_USER_ENCODED_HEADER);
            if (encoded != null) {
                user = URLDecoder.decode(encoded, StandardCharsets.UTF_8);
            }
            if (user == null) {
                chain.doFilter(request, response);
                return;
            }
            String name = user;
            Principal principal = () -> name;
            chain.doFilter(new HttpServletRequestWrapper((HttpServletRequest) request) {
                @Override
                public Principal getUserPrincipal() {
                    return principal;
                }
            }, response);
        };
    }
}
