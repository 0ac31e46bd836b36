package dev.idem.jakarta.rest;

import io.undertow.Undertow;
import jakarta.ws.rs.core.Application;
import java.net.InetSocketAddress;
import java.net.URI;
import java.util.Set;
import org.jboss.resteasy.plugins.server.undertow.UndertowJaxrsServer;

/** RESTEasy 7 on Undertow, the feature among the {@link Application}'s singletons. */
final class ResteasyServer implements RestServer {
    private final Server server;
    private final URI base;

    private ResteasyServer(Server server) {
        this.server = server;
        InetSocketAddress address = (InetSocketAddress) server.undertow().getListenerInfo().get(0).getAddress();
        this.base = URI.create("http://127.0.0.1:" + address.getPort());
    }

    static RestServer start(Set<Object> singletons) {
        Server server = new Server();
        server.start(Undertow.builder().addHttpListener(0, "127.0.0.1"));
        server.deploy(new Application() {
            @Override
            public Set<Object> getSingletons() {
                return singletons;
            }
        });
        return new ResteasyServer(server);
    }

    @Override
    public URI base() {
        return base;
    }

    @Override
    public void close() {
        server.stop();
    }

    /** Exposes the running Undertow, for its port. */
    private static final class Server extends UndertowJaxrsServer {
        Undertow undertow() {
            return server;
        }
    }
}
