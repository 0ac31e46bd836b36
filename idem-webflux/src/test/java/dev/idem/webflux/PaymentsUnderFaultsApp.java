package dev.idem.webflux;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.idem.Execution;
import dev.idem.Idem;
import dev.idem.jdbc.JdbcIdempotencyStore;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import javax.sql.DataSource;
import org.springframework.http.HttpStatus;
import org.springframework.http.codec.ServerCodecConfigurer;
import org.springframework.http.server.reactive.HttpHandler;
import org.springframework.http.server.reactive.ReactorHttpHandlerAdapter;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebHandler;
import org.springframework.web.server.adapter.WebHttpHandlerBuilder;
import reactor.blockhound.BlockHound;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;
import reactor.netty.DisposableServer;
import reactor.netty.http.server.HttpServer;

/**
 * A WebFlux payments endpoint as a user would write one, run in a JVM of its own so that
 * {@link PaymentsUnderFaultsTest} can SIGKILL it: {@code POST /payments} behind
 * {@link IdempotencyWebFilter}, the card charged in a phase (its derived key is the gateway's
 * idempotency key, as a card gateway's API takes one), then the payment recorded, then 201. The
 * "gateway" is a table of charges keyed by the gateway key, so two charges for one payment are two
 * rows. While the arm file exists, the next payment deletes it after its charge, writes its key to
 * {@code <arm>.charged} and hangs: charged, not recorded, not answered, for the test to kill. BlockHound
 * is installed: a blocking call on an event loop fails its request.
 *
 * <p>Arguments: JDBC URL, port, arm file.
 */
public final class PaymentsUnderFaultsApp {
    /** Short, so that a retry after a kill may take the record over soon. */
    static final Duration LEASE = Duration.ofSeconds(2);

    private PaymentsUnderFaultsApp() {
    }

    public static void main(String[] args) throws Exception {
        ServerCodecConfigurer.create(); // reads a properties file once: here, not on the first request's event loop
        BlockHound.install();
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(args[0]);
        config.setMaximumPoolSize(8);
        HikariDataSource dataSource = new HikariDataSource(config);
        createTables(dataSource);
        JdbcIdempotencyStore store = JdbcIdempotencyStore.builder(dataSource).build();
        store.migrate();
        Idem idem = Idem.builder().store(store).lease(LEASE).build();
        IdempotencyWebFilter filter = IdempotencyWebFilter.builder(idem).route("POST", "/payments").build();
        Path arm = Path.of(args[2]);
        WebHandler payments = exchange -> pay(exchange, dataSource, arm);
        HttpHandler http = WebHttpHandlerBuilder.webHandler(payments).filter(filter).build();
        DisposableServer server = HttpServer.create().host("127.0.0.1").port(Integer.parseInt(args[1]))
                .handle(new ReactorHttpHandlerAdapter(http)).bindNow();
        server.onDispose().block();
    }

    static void createTables(DataSource dataSource) throws SQLException {
        try (Connection c = dataSource.getConnection(); Statement st = c.createStatement()) {
            st.execute("CREATE TABLE IF NOT EXISTS gateway_charges (gateway_key text PRIMARY KEY, payment_key text NOT NULL)");
            st.execute("CREATE TABLE IF NOT EXISTS payments (payment_key text PRIMARY KEY, charge text NOT NULL)");
        }
    }

    private static Mono<Void> pay(ServerWebExchange exchange, DataSource dataSource, Path arm) {
        String paymentKey = exchange.getRequest().getHeaders().getFirst("Idempotency-Key");
        Execution execution = IdempotencyWebFilter.execution(exchange).orElseThrow();
        return Mono.fromCallable(() -> {
                    // A phase checkpoints to the store, which blocks: on boundedElastic, never on the event loop.
                    String charge = execution.phase("charge", gatewayKey -> charge(dataSource, gatewayKey, paymentKey));
                    if (Files.deleteIfExists(arm)) {
                        Files.writeString(Path.of(arm + ".charged"), paymentKey, StandardCharsets.UTF_8);
                        Thread.sleep(Long.MAX_VALUE); // the test kills this process here
                    }
                    record(dataSource, paymentKey, charge);
                    return charge;
                })
                .subscribeOn(Schedulers.boundedElastic())
                .flatMap(charge -> {
                    exchange.getResponse().setStatusCode(HttpStatus.CREATED);
                    exchange.getResponse().getHeaders().set("Content-Type", "application/json");
                    byte[] body = ("{\"payment\":\"" + paymentKey + "\",\"charge\":\"" + charge + "\"}").getBytes(StandardCharsets.UTF_8);
                    return exchange.getResponse().writeWith(Mono.just(exchange.getResponse().bufferFactory().wrap(body)));
                });
    }

    /** The card gateway: one charge per gateway key; the same key again is the same charge. */
    private static String charge(DataSource dataSource, String gatewayKey, String paymentKey) throws SQLException {
        update(dataSource, "INSERT INTO gateway_charges (gateway_key, payment_key) VALUES (?, ?) ON CONFLICT (gateway_key) DO NOTHING",
                gatewayKey, paymentKey);
        return "ch_" + Integer.toHexString(gatewayKey.hashCode());
    }

    private static void record(DataSource dataSource, String paymentKey, String charge) throws SQLException {
        update(dataSource, "INSERT INTO payments (payment_key, charge) VALUES (?, ?) ON CONFLICT (payment_key) DO NOTHING", paymentKey, charge);
    }

    private static void update(DataSource dataSource, String sql, String first, String second) throws SQLException {
        try (Connection c = dataSource.getConnection(); PreparedStatement st = c.prepareStatement(sql)) {
            st.setString(1, first);
            st.setString(2, second);
            st.executeUpdate();
        }
    }
}
