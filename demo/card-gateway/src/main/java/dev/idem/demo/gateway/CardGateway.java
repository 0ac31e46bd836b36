package dev.idem.demo.gateway;

import com.sun.net.httpserver.HttpServer;
import dev.idem.Idem;
import dev.idem.jdbc.JdbcIdempotencyStore;
import dev.idem.jdbc.TransactionalIdem;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.sql.SQLException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import tools.jackson.core.StreamReadFeature;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.json.JsonMapper;

/**
 * A running card gateway: {@code POST /charges}, {@code GET|DELETE /ledger}, {@code GET /health}
 * on the JDK's HTTP server, over a {@link DataSource} that holds both the ledger and the
 * idempotency records (so they commit together).
 */
public final class CardGateway implements AutoCloseable {
    public static final String HEALTH_PATH = "/health";

    private final HttpServer server;
    private final ExecutorService executor;

    private CardGateway(HttpServer server, ExecutorService executor) {
        this.server = server;
        this.executor = executor;
    }

    /** Creates the tables if needed (and clears them if {@code config.reset()}), then listens. */
    public static CardGateway start(GatewayConfig config, DataSource dataSource) {
        return start(config, dataSource, jsonMapper());
    }

    /**
     * The gateway's JSON settings: duplicate fields and trailing tokens are errors. Building one
     * loads much of Jackson, so the main method builds it on another thread while the database
     * opens (the gateway must be up within a second).
     */
    static JsonMapper jsonMapper() {
        JsonMapper json = JsonMapper.builder()
                .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
                .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
                .build();
        json.writeValueAsString(json.readTree("{\"warm\":[1,\"up\"]}"));
        return json;
    }

    static CardGateway start(GatewayConfig config, DataSource dataSource, JsonMapper json) {
        JdbcIdempotencyStore store = JdbcIdempotencyStore.builder(dataSource).tableName(ChargeLedger.IDEM_TABLE).build();
        store.migrate();
        ChargeLedger ledger = new ChargeLedger(dataSource);
        try {
            ledger.migrate();
            if (config.reset()) {
                ledger.clear();
            }
        } catch (SQLException e) {
            throw new IllegalStateException("cannot prepare the gateway's ledger table: " + e.getMessage(), e);
        }
        // A retention shorter than the engine's default lease takes the lease down with it (the engine
        // refuses a retention shorter than the lease); the gateway's claims last one transaction anyway.
        Idem defaults = Idem.builder().store(store).build();
        Idem.Builder builder = defaults.toBuilder().retention(config.retention());
        if (config.retention().compareTo(defaults.lease()) < 0) {
            builder.lease(config.retention());
        }
        TransactionalIdem idem = TransactionalIdem.of(builder.build());
        ExecutorService executor = Executors.newFixedThreadPool(config.threads(), daemonThreads());
        try {
            HttpServer server = HttpServer.create(new InetSocketAddress(config.bind(), config.port()), 256);
            server.setExecutor(executor);
            server.createContext(ChargeHandler.PATH, new ChargeHandler(idem, ledger, config.faults(), new FaultDice(config.seed()), json));
            server.createContext(LedgerHandler.PATH, new LedgerHandler(ledger, json));
            server.createContext(HEALTH_PATH, exchange -> {
                try {
                    HttpIo.sendJson(exchange, 200, "{\"status\":\"UP\"}".getBytes(StandardCharsets.UTF_8));
                } finally {
                    exchange.close();
                }
            });
            server.start();
            return new CardGateway(server, executor);
        } catch (IOException e) {
            executor.shutdownNow();
            throw new UncheckedIOException("cannot listen on " + config.bind().getHostAddress() + ":" + config.port(), e);
        }
    }

    public int port() {
        return server.getAddress().getPort();
    }

    /** {@code http://127.0.0.1:<port>} */
    public String baseUrl() {
        return "http://" + server.getAddress().getAddress().getHostAddress() + ":" + port();
    }

    /** Stops at once: requests in flight are cut, as in a crash; what committed stays committed. */
    @Override
    public void close() {
        server.stop(0);
        executor.shutdownNow();
        try {
            executor.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static java.util.concurrent.ThreadFactory daemonThreads() {
        AtomicInteger count = new AtomicInteger();
        return runnable -> {
            Thread thread = new Thread(runnable, "gateway-" + count.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        };
    }
}
