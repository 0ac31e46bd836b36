package dev.idem.demo.proxy;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A real HTTP server behind the proxy that counts the requests it handled. {@code /echo} answers
 * with a Content-Length body naming the request's number, {@code /chunked} with a chunked body,
 * {@code /empty} with 204.
 */
final class CountingServer implements AutoCloseable {
    private final HttpServer server;
    private final AtomicInteger handled = new AtomicInteger();

    CountingServer() throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 64);
        server.setExecutor(Executors.newFixedThreadPool(4));
        server.createContext("/echo", exchange -> {
            byte[] request = exchange.getRequestBody().readAllBytes();
            int n = handled.incrementAndGet();
            byte[] body = ("handled " + n + ": " + new String(request, StandardCharsets.UTF_8)).getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(200, body.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        });
        server.createContext("/chunked", exchange -> {
            exchange.getRequestBody().readAllBytes();
            handled.incrementAndGet();
            exchange.sendResponseHeaders(200, 0);
            try (OutputStream out = exchange.getResponseBody()) {
                for (int i = 0; i < 3; i++) {
                    out.write(("part-" + i + ";").getBytes(StandardCharsets.UTF_8));
                    out.flush();
                }
            }
        });
        server.createContext("/empty", exchange -> {
            exchange.getRequestBody().readAllBytes();
            handled.incrementAndGet();
            exchange.sendResponseHeaders(204, -1);
            exchange.close();
        });
        server.start();
    }

    int port() {
        return server.getAddress().getPort();
    }

    int handled() {
        return handled.get();
    }

    @Override
    public void close() {
        server.stop(0);
        ((java.util.concurrent.ExecutorService) server.getExecutor()).shutdownNow();
    }
}
