package dev.idem.demo.ledger;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.sql.SQLException;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The consumer's HTTP side on 127.0.0.1, for whoever verifies (the lab), all {@code GET}, all JSON:
 * <ul>
 * <li>{@code /health}: 200 {@code {"status":"up","mode":"inbox"}} once the group assigned the
 *     consumer its partitions; 503 with {@code "starting"} before that, {@code "down"} if the loop died;</li>
 * <li>{@code /ledger}: 200 {@code {"count":n,"entries":[{"entryId":1,"paymentId":…,"card":…,"amount":123,
 *     "currency":"EUR","messageId":…}]}} in entry order ({@code messageId} may be null);</li>
 * <li>{@code /lag}: 200 {@code {"lag":L}}, see {@link Lag}; −1 if it cannot be computed.</li>
 * </ul>
 */
final class LedgerHttp implements AutoCloseable {
    private static final String JSON = "application/json";

    private final HttpServer server;
    private final ExecutorService executor;

    private LedgerHttp(HttpServer server, ExecutorService executor) {
        this.server = server;
        this.executor = executor;
    }

    /**
     * Listens on 127.0.0.1:{@code port} (0: a free port).
     *
     * @throws UncheckedIOException if the port is taken
     */
    static LedgerHttp start(int port, Mode mode, Supplier<LedgerLoop.State> state, LedgerTable ledger, LongSupplier lag, JsonMapper json) {
        ExecutorService executor = Executors.newFixedThreadPool(4, daemonThreads());
        HttpServer server;
        try {
            server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 64);
        } catch (IOException e) {
            executor.shutdownNow();
            throw new UncheckedIOException("cannot listen on 127.0.0.1:" + port, e);
        }
        server.setExecutor(executor);
        server.createContext("/", exchange -> respond(exchange, json, () -> {
            String path = exchange.getRequestURI().getPath();
            switch (path) {
                case "/health" -> {
                    LedgerLoop.State now = state.get();
                    ObjectNode body = json.createObjectNode().put("status", now.name().toLowerCase(java.util.Locale.ROOT)).put("mode", mode.flag());
                    return new Answer(now == LedgerLoop.State.UP ? 200 : 503, body);
                }
                case "/ledger" -> {
                    return new Answer(200, ledger(ledger.entries(), json));
                }
                case "/lag" -> {
                    return new Answer(200, json.createObjectNode().put("lag", lag.getAsLong()));
                }
                default -> {
                    return new Answer(404, json.createObjectNode().put("error", "no such resource; try /health, /ledger or /lag"));
                }
            }
        }));
        server.start();
        return new LedgerHttp(server, executor);
    }

    int port() {
        return server.getAddress().getPort();
    }

    private static ObjectNode ledger(List<LedgerEntry> entries, JsonMapper json) {
        ObjectNode root = json.createObjectNode();
        root.put("count", entries.size());
        ArrayNode rows = root.putArray("entries");
        for (LedgerEntry entry : entries) {
            rows.addObject()
                    .put("entryId", entry.entryId())
                    .put("paymentId", entry.paymentId())
                    .put("card", entry.card())
                    .put("amount", entry.amount())
                    .put("currency", entry.currency())
                    .put("messageId", entry.messageId());
        }
        return root;
    }

    private record Answer(int status, ObjectNode body) {
    }

    @FunctionalInterface
    private interface Route {
        Answer answer() throws SQLException;
    }

    private static void respond(HttpExchange exchange, JsonMapper json, Route route) throws IOException {
        try {
            Answer answer;
            if (!"GET".equals(exchange.getRequestMethod())) {
                exchange.getResponseHeaders().add("Allow", "GET");
                answer = new Answer(405, json.createObjectNode().put("error", "use GET"));
            } else {
                try {
                    answer = route.answer();
                } catch (SQLException | RuntimeException e) {
                    System.err.println("ledger-consumer: " + exchange.getRequestURI().getPath() + " failed: " + e);
                    answer = new Answer(500, json.createObjectNode().put("error", "the ledger could not be read"));
                }
            }
            byte[] body = json.writeValueAsString(answer.body()).getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().add("Content-Type", JSON);
            exchange.sendResponseHeaders(answer.status(), body.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        } finally {
            exchange.close();
        }
    }

    /** Stops listening at once; a request in flight is cut (the JDK's server would wait out any delay given). */
    @Override
    public void close() {
        server.stop(0);
        executor.shutdownNow();
        try {
            executor.awaitTermination(2, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static java.util.concurrent.ThreadFactory daemonThreads() {
        AtomicInteger count = new AtomicInteger();
        return runnable -> {
            Thread thread = new Thread(runnable, "ledger-http-" + count.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        };
    }
}
