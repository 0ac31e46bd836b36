package dev.idem.demo.payments;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.idem.testing.RealServices;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.UUID;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.http.HttpHeaders;
import org.springframework.http.ResponseEntity;

/**
 * The payment table's statements when PostgreSQL fails them as the fleet's nemesis does: a connection
 * terminated by {@code pg_terminate_backend}, a pool with no connection to hand out. Either is a
 * failure that passes, answered 503 with {@code Retry-After} (a 500 looks final to a client, which
 * would give up a payment that a retry completes); a failure that does not pass stays a 500.
 */
class PaymentRepositoryOutageTest {
    private static final PaymentRequest REQUEST = new PaymentRequest(1250, "EUR", "outage-card");

    private String server;
    private String schema;
    private String url;

    @BeforeEach
    void schema() throws Exception {
        server = RealServices.postgresUrl();
        schema = "demo_outage_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
        try (Connection c = DriverManager.getConnection(server); Statement st = c.createStatement()) {
            st.execute("CREATE SCHEMA " + schema);
        }
        url = server + (server.contains("?") ? "&" : "?") + "currentSchema=" + schema + "&ApplicationName=" + schema;
    }

    @AfterEach
    void drop() throws Exception {
        try (Connection c = DriverManager.getConnection(server); Statement st = c.createStatement()) {
            st.execute("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
        }
    }

    @Test
    void aConnectionPostgresTerminatedFailsThePaymentWith503AndRetryAfter() throws Exception {
        try (HikariDataSource pool = pool(4, Duration.ofSeconds(5))) {
            PaymentRepository setup = new PaymentRepository(pool);
            setup.createTable();
            String id = setup.createPending("rk-paid-later", REQUEST);
            Connection terminated = DriverManager.getConnection(url);
            terminate(terminated);
            PaymentRepository payments = new PaymentRepository(handingOut(terminated));

            assertAnswered503(() -> payments.createPending("rk-1", REQUEST), "create the payment");
            Connection terminatedToo = DriverManager.getConnection(url);
            terminate(terminatedToo);
            assertAnswered503(() -> new PaymentRepository(handingOut(terminatedToo)).markPaid(id, "ch_1"), "mark the payment paid");

            assertThat(setup.find(id).orElseThrow().status()).as("nothing changed: a retry marks it paid").isEqualTo(Payment.PENDING);
        }
    }

    @Test
    void aPoolWithNoConnectionToHandOutFailsThePaymentWith503() throws Exception {
        try (HikariDataSource pool = pool(1, Duration.ofMillis(250))) {
            PaymentRepository payments = new PaymentRepository(pool);
            payments.createTable();
            try (Connection held = pool.getConnection()) {
                assertThat(held.isValid(1)).isTrue();
                assertAnswered503(() -> payments.createPending("rk-1", REQUEST), "create the payment");
            }
            assertThat(payments.createPending("rk-1", REQUEST)).as("once a connection is free, the retry creates it").startsWith("pay_");
        }
    }

    @Test
    void aFailureThatDoesNotPassStaysUnexpected() {
        try (HikariDataSource pool = pool(1, Duration.ofSeconds(5))) {
            // No table: a retry would fail the same way.
            assertThatThrownBy(() -> new PaymentRepository(pool).createPending("rk-1", REQUEST)).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("cannot create the payment");
        }
    }

    private static void assertAnswered503(Runnable statement, String what) {
        assertThatThrownBy(statement::run).isInstanceOfSatisfying(PaymentProblem.class, problem -> {
            assertThat(problem.status()).isEqualTo(503);
            assertThat(problem.getMessage()).contains(what, "retry with the same Idempotency-Key");
            ResponseEntity<?> answer = new ProblemAdvice().problem(problem);
            assertThat(answer.getStatusCode().value()).isEqualTo(503);
            assertThat(answer.getHeaders().getFirst(HttpHeaders.RETRY_AFTER)).isEqualTo("1");
        });
    }

    private HikariDataSource pool(int size, Duration connectionTimeout) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(url);
        config.setMaximumPoolSize(size);
        config.setConnectionTimeout(connectionTimeout.toMillis());
        return new HikariDataSource(config);
    }

    /** pg_terminate_backend of this connection's session, returning once PostgreSQL has ended it. */
    private void terminate(Connection victim) throws Exception {
        int pid;
        try (Statement st = victim.createStatement(); ResultSet rs = st.executeQuery("SELECT pg_backend_pid()")) {
            rs.next();
            pid = rs.getInt(1);
        }
        try (Connection admin = DriverManager.getConnection(server);
             PreparedStatement kill = admin.prepareStatement("SELECT pg_terminate_backend(?)");
             PreparedStatement alive = admin.prepareStatement("SELECT count(*) FROM pg_stat_activity WHERE pid = ?")) {
            kill.setInt(1, pid);
            kill.execute();
            alive.setInt(1, pid);
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (true) {
                try (ResultSet rs = alive.executeQuery()) {
                    rs.next();
                    if (rs.getInt(1) == 0) {
                        return;
                    }
                }
                assertThat(System.nanoTime()).as("PostgreSQL ended session " + pid).isLessThan(deadline);
                Thread.sleep(20);
            }
        }
    }

    /** A data source that hands out this one connection, as a pool hands out one whose session has ended under it. */
    private static DataSource handingOut(Connection connection) {
        return (DataSource) Proxy.newProxyInstance(DataSource.class.getClassLoader(), new Class<?>[] {DataSource.class}, (proxy, method, args) -> {
            if (method.getName().equals("getConnection")) {
                return connection;
            }
            throw new UnsupportedOperationException(method.getName());
        });
    }
}
