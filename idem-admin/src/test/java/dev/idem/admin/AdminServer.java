package dev.idem.admin;

import jakarta.servlet.DispatcherType;
import jakarta.servlet.Filter;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.security.Principal;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import org.eclipse.jetty.ee10.servlet.FilterHolder;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;

/**
 * The admin servlet on Jetty at {@code /idem-admin/*}, behind a stand-in for the container's
 * authentication: {@code X-Test-User} names the principal and {@code X-Test-Roles} its roles.
 */
final class AdminServer implements AutoCloseable {
    private final Server server;
    final URI base;
    private final HttpClient http = HttpClient.newHttpClient();

    private AdminServer(Server server, URI base) {
        this.server = server;
        this.base = base;
    }

    static AdminServer start(IdemAdminServlet servlet) throws Exception {
        Server server = new Server();
        ServerConnector connector = new ServerConnector(server);
        connector.setHost("127.0.0.1");
        connector.setPort(0);
        server.addConnector(connector);
        ServletContextHandler context = new ServletContextHandler("/");
        Filter authentication = (request, response, chain) -> {
            HttpServletRequest http = (HttpServletRequest) request;
            String user = http.getHeader("X-Test-User");
            Set<String> roles = http.getHeader("X-Test-Roles") == null ? Set.of() : Set.of(http.getHeader("X-Test-Roles").split(","));
            chain.doFilter(user == null ? request : new HttpServletRequestWrapper(http) {
                @Override
                public Principal getUserPrincipal() {
                    return () -> user;
                }

                @Override
                public boolean isUserInRole(String role) {
                    return roles.contains(role);
                }
            }, response);
        };
        context.addFilter(new FilterHolder(authentication), "/*", EnumSet.of(DispatcherType.REQUEST));
        context.addServlet(new ServletHolder(servlet), "/idem-admin/*");
        server.setHandler(context);
        server.start();
        return new AdminServer(server, URI.create("http://127.0.0.1:" + connector.getLocalPort() + "/idem-admin/"));
    }

    HttpResponse<String> get(String path, String... headers) throws Exception {
        HttpRequest.Builder r = HttpRequest.newBuilder(base.resolve(path)).GET();
        if (headers.length > 0) {
            r.headers(headers);
        }
        return http.send(r.build(), HttpResponse.BodyHandlers.ofString());
    }

    HttpResponse<String> post(String path, String contentType, String body, String... headers) throws Exception {
        HttpRequest.Builder r = HttpRequest.newBuilder(base.resolve(path)).POST(HttpRequest.BodyPublishers.ofString(body))
                .header("Content-Type", contentType);
        if (headers.length > 0) {
            r.headers(headers);
        }
        return http.send(r.build(), HttpResponse.BodyHandlers.ofString());
    }

    /** The headers of an operator with the admin role. */
    static String[] operator() {
        return new String[] {"X-Test-User", "olga", "X-Test-Roles", "IDEM_ADMIN"};
    }

    /** The headers of an authenticated user without it. */
    static String[] someoneElse() {
        return new String[] {"X-Test-User", "mallory", "X-Test-Roles", "USER"};
    }

    static String[] with(String[] a, String... more) {
        List<String> all = new java.util.ArrayList<>(List.of(a));
        all.addAll(List.of(more));
        return all.toArray(String[]::new);
    }

    @Override
    public void close() throws Exception {
        server.stop();
    }
}
