package dev.idem.client;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * A tiny idempotent server on 127.0.0.1 (the server half of §4, reduced to what the client needs):
 * the first request with a key executes — counted per key — and its response is stored; a repeat
 * with that key gets the stored response with {@code Idempotent-Replayed: true}. A request without a
 * key executes every time.
 *
 * <p>Canned responses queued with {@link #thenRespond} are answered <em>before</em> executing, as a
 * gateway (502/503/504), a rate limiter (429) or an in-progress key (409) would: they execute nothing.
 * A canned 409 is idem's filter's answer to a key in progress: {@code application/problem+json} of
 * type {@code urn:idem:problem:key-in-use}; {@link #thenRespondWith} gives any other body.
 */
final class IdempotentTestServer implements AutoCloseable {
    /** One request as the server saw it. {@code key} is null when the request had none. */
    record Seen(String method, String path, String key, String body) {
    }

    private record Canned(int status, Map<String, String> headers, String contentType, String body) {
        Canned(int status, Map<String, String> headers) {
            this(status, headers, status == 409 ? "application/problem+json" : "text/plain; charset=utf-8",
                    status == 409 ? "{\"type\":\"urn:idem:problem:key-in-use\",\"title\":\"Idempotency key in use\","
                            + "\"status\":409,\"detail\":\"A request with this key is still being processed.\"}"
                            : "canned " + status);
        }
    }

    private final HttpServer server;
    private final ExecutorService executor = Executors.newCachedThreadPool();
    private final String keyHeader;
    private final List<Seen> seen = new ArrayList<>();
    private final Deque<Canned> script = new ArrayDeque<>();
    private final Map<String, Integer> executionsByKey = new HashMap<>();
    private final Map<String, String> stored = new HashMap<>();
    private Canned always;
    private int executions;
    private volatile Runnable onRequest = () -> { };

    private IdempotentTestServer(String keyHeader) throws IOException {
        this.keyHeader = keyHeader;
        this.server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/", this::handle);
        server.setExecutor(executor);
        server.start();
    }

    static IdempotentTestServer start() throws IOException {
        return start("Idempotency-Key");
    }

    static IdempotentTestServer start(String keyHeader) throws IOException {
        return new IdempotentTestServer(keyHeader);
    }

    URI uri(String path) {
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort() + path);
    }

    /** Queues a canned answer for the next request that finds the queue's head; headers as name, value pairs. */
    synchronized IdempotentTestServer thenRespond(int status, String... headerPairs) {
        script.add(new Canned(status, pairs(headerPairs)));
        return this;
    }

    /** Queues a canned answer with this content type and body. */
    synchronized IdempotentTestServer thenRespondWith(int status, String contentType, String body, String... headerPairs) {
        script.add(new Canned(status, pairs(headerPairs), contentType, body));
        return this;
    }

    /** Answers every request (once the queue is empty) with this canned response. */
    synchronized IdempotentTestServer alwaysRespond(int status, String... headerPairs) {
        always = new Canned(status, pairs(headerPairs));
        return this;
    }

    /** Runs at the start of each request, e.g. to advance a fake clock as if the attempt took time. */
    void onRequest(Runnable action) {
        this.onRequest = action;
    }

    synchronized List<Seen> seen() {
        return List.copyOf(seen);
    }

    /** The key of every request in arrival order; null for a request without one. */
    synchronized List<String> keys() {
        List<String> keys = new ArrayList<>();
        seen.forEach(s -> keys.add(s.key()));
        return keys;
    }

    synchronized int requests() {
        return seen.size();
    }

    /** Executions of all requests, with or without a key. */
    synchronized int executions() {
        return executions;
    }

    synchronized int executions(String key) {
        return executionsByKey.getOrDefault(key, 0);
    }

    private void handle(HttpExchange exchange) throws IOException {
        try (exchange) {
            onRequest.run();
            String body;
            try (InputStream in = exchange.getRequestBody()) {
                body = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            }
            String key = exchange.getRequestHeaders().getFirst(keyHeader);
            int status;
            String responseBody;
            Map<String, String> headers = new LinkedHashMap<>();
            String contentType = "text/plain; charset=utf-8";
            synchronized (this) {
                seen.add(new Seen(exchange.getRequestMethod(), exchange.getRequestURI().getPath(), key, body));
                Canned canned = script.isEmpty() ? always : script.poll();
                if (canned != null) {
                    status = canned.status();
                    headers.putAll(canned.headers());
                    contentType = canned.contentType();
                    responseBody = canned.body();
                } else if (key != null && stored.containsKey(key)) {
                    status = 201;
                    headers.put("Idempotent-Replayed", "true");
                    responseBody = stored.get(key);
                } else {
                    executions++;
                    if (key != null) {
                        executionsByKey.merge(key, 1, Integer::sum);
                    }
                    status = 201;
                    responseBody = "payment-" + executions;
                    if (key != null) {
                        stored.put(key, responseBody);
                    }
                }
            }
            byte[] bytes = responseBody.getBytes(StandardCharsets.UTF_8);
            headers.forEach((name, value) -> exchange.getResponseHeaders().add(name, value));
            exchange.getResponseHeaders().add("Content-Type", contentType);
            exchange.sendResponseHeaders(status, bytes.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(bytes);
            }
        }
    }

    private static Map<String, String> pairs(String... headerPairs) {
        if (headerPairs.length % 2 != 0) {
            throw new IllegalArgumentException("header name without a value");
        }
        Map<String, String> headers = new LinkedHashMap<>();
        for (int i = 0; i < headerPairs.length; i += 2) {
            headers.put(headerPairs[i], headerPairs[i + 1]);
        }
        return headers;
    }

    @Override
    public void close() {
        server.stop(0);
        executor.shutdownNow();
    }
}
