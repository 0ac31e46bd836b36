package dev.idem.spring;

import dev.idem.IdempotencyKey;
import dev.idem.Scope;
import dev.idem.jdbc.JdbcIdempotencyStore;
import dev.idem.micrometer.MicrometerIdemListener;
import dev.idem.spi.IdempotencyRecord;
import dev.idem.spi.RecordKey;
import dev.idem.spring.app.Effects;
import dev.idem.spring.app.Gate;
import dev.idem.spring.app.OrdersApplication;
import dev.idem.testing.TestDatabase;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.net.URI;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.springframework.boot.SpringApplication;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * {@link OrdersApplication} running in this JVM on a random port, its {@code spring.datasource.url}
 * pointing at a fresh database of the backend, with idem's starter configured only by properties.
 */
final class TestApp implements AutoCloseable {
    /** The principal header the test application scopes keys by ({@code idem.scope.credential-header}). */
    static final String API_KEY_HEADER = "X-Api-Key";

    final Backend backend;
    final TestDatabase db;
    final ConfigurableApplicationContext context;
    final URI base;

    private TestApp(Backend backend, TestDatabase db, ConfigurableApplicationContext context) {
        this.backend = backend;
        this.db = db;
        this.context = context;
        this.base = URI.create("http://127.0.0.1:" + context.getEnvironment().getProperty("local.server.port"));
    }

    static TestApp start(Backend backend, String... extraArguments) {
        TestDatabase db = backend.open();
        List<String> arguments = new ArrayList<>(List.of(
                "--server.port=0",
                "--server.address=127.0.0.1",
                "--spring.datasource.url=" + Backend.jdbcUrl(db),
                "--spring.main.banner-mode=off",
                "--logging.level.root=WARN",
                // The handlers that throw on purpose would print a stack trace per request.
                "--logging.level.org.apache.catalina.core=OFF",
                "--logging.level.org.springframework.web.servlet.mvc.support=ERROR",
                "--idem.scope.credential-header=" + API_KEY_HEADER,
                "--idem.max-request-bytes=64KB"));
        arguments.addAll(List.of(extraArguments));
        try {
            ConfigurableApplicationContext context = SpringApplication.run(OrdersApplication.class, arguments.toArray(String[]::new));
            return new TestApp(backend, db, context);
        } catch (RuntimeException e) {
            db.close();
            throw e;
        }
    }

    URI uri(String path) {
        return base.resolve(path);
    }

    Effects effects() {
        return context.getBean(Effects.class);
    }

    Gate gate() {
        return context.getBean(Gate.class);
    }

    JdbcIdempotencyStore store() {
        return context.getBean(JdbcIdempotencyStore.class);
    }

    /** The count of {@code idem.claims} with this outcome, over every operation. */
    double claims(String outcome) {
        return context.getBean(MeterRegistry.class).find(MicrometerIdemListener.CLAIMS).tag(MicrometerIdemListener.OUTCOME_TAG, outcome)
                .counters().stream().mapToDouble(Counter::count).sum();
    }

    /** Every record of the store, whatever its state. */
    int rows() throws SQLException {
        try (Connection c = db.dataSource().getConnection(); Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT count(*) FROM " + store().tableName())) {
            rs.next();
            return rs.getInt(1);
        }
    }

    /** The stored scopes of records with this key value. */
    List<String> scopesOfKey(String key) throws SQLException {
        List<String> scopes = new ArrayList<>();
        try (Connection c = db.dataSource().getConnection();
             var ps = c.prepareStatement("SELECT scope FROM " + store().tableName() + " WHERE idem_key = ? ORDER BY scope")) {
            ps.setString(1, key);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    scopes.add(rs.getString(1));
                }
            }
        }
        return scopes;
    }

    /** Committed rows of {@code item} in the transactional endpoints' table ({@code OrderBook}). */
    int orderRows(String item) throws SQLException {
        try (Connection c = db.dataSource().getConnection();
             var ps = c.prepareStatement("SELECT count(*) FROM tx_order WHERE item = ?")) {
            ps.setString(1, item);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getInt(1);
            }
        }
    }

    Optional<IdempotencyRecord> record(String principal, String operation, String key) {
        return store().find(new RecordKey(Scope.of(principal, operation), IdempotencyKey.of(key)));
    }

    @Override
    public void close() {
        try {
            context.close();
        } finally {
            db.close();
        }
    }

    @Override
    public String toString() {
        return "OrdersApplication on " + backend;
    }
}
