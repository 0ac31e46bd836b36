package dev.idem.webflux;

import java.net.URI;
import java.util.Map;
import org.springframework.http.HttpStatus;
import org.springframework.http.server.reactive.HttpHandler;
import org.springframework.http.server.reactive.ReactorHttpHandlerAdapter;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.WebHandler;
import org.springframework.web.server.adapter.WebHttpHandlerBuilder;
import reactor.core.publisher.Mono;
import reactor.netty.DisposableServer;
import reactor.netty.http.server.HttpServer;

/** A real Reactor Netty server on a free port: the filter in front of handlers chosen by path. */
final class WebFluxServer implements AutoCloseable {
    private final DisposableServer server;

    WebFluxServer(WebFilter filter, Map<String, WebHandler> routes) {
        WebHandler dispatch = exchange -> {
            WebHandler handler = routes.get(exchange.getRequest().getPath().pathWithinApplication().value());
            if (handler == null) {
                exchange.getResponse().setStatusCode(HttpStatus.NOT_FOUND);
                return exchange.getResponse().setComplete();
            }
            return handler.handle(exchange);
        };
        HttpHandler http = WebHttpHandlerBuilder.webHandler(dispatch).filter(filter).build();
        this.server = HttpServer.create().host("127.0.0.1").port(0).handle(new ReactorHttpHandlerAdapter(http)).bindNow();
    }

    URI uri(String path) {
        return URI.create("http://127.0.0.1:" + server.port() + path);
    }

    /** Writes {@code body} as the response, with {@code status} and content type JSON. */
    static Mono<Void> json(ServerWebExchange exchange, HttpStatus status, String body) {
        exchange.getResponse().setStatusCode(status);
        exchange.getResponse().getHeaders().set("Content-Type", "application/json");
        byte[] bytes = body.getBytes(java.nio.charset.StandardCharsets.UTF_8);
        return exchange.getResponse().writeWith(Mono.fromSupplier(() -> exchange.getResponse().bufferFactory().wrap(bytes)));
    }

    @Override
    public void close() {
        server.disposeNow();
    }
}
