package dev.idem.jakarta.rest;

import com.sun.net.httpserver.HttpServer;
import java.net.URI;
import java.util.Set;
import org.glassfish.jersey.jdkhttp.JdkHttpServerFactory;
import org.glassfish.jersey.server.ResourceConfig;

/** Jersey 4 on the JDK's HTTP server, the feature registered on a {@link ResourceConfig}. */
final class JerseyServer implements RestServer {
    private final HttpServer server;
    private final URI base;

    private JerseyServer(HttpServer server) {
        this.server = server;
        this.base = URI.create("http://127.0.0.1:" + server.getAddress().getPort());
    }

    static RestServer start(Set<Object> singletons) {
        ResourceConfig config = new ResourceConfig();
        singletons.forEach(config::register);
        return new JerseyServer(JdkHttpServerFactory.createHttpServer(URI.create("http://127.0.0.1:0/"), config));
    }

    @Override
    public URI base() {
        return base;
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
