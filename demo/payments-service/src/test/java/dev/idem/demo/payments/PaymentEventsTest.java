package dev.idem.demo.payments;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.idem.outbox.Outbox;
import dev.idem.jdbc.Sqlite;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The payment's event is written in the transaction that marks it paid, on a real SQLite database
 * with idem's real outbox (not relayed here; the lab's messaging rows relay it through Kafka): once
 * per payment, never without the status, never the status without the event.
 */
class PaymentEventsTest {
    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final PaymentRequest REQUEST = new PaymentRequest(1250, "EUR", "card-1");

    @TempDir
    Path dir;
    private HikariDataSource dataSource;
    private Outbox outbox;

    @BeforeEach
    void setUp() {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(Sqlite.url(dir.resolve("payments.db")));
        config.setMaximumPoolSize(2);
        dataSource = new HikariDataSource(config);
        outbox = Outbox.builder(dataSource).build();
    }

    @AfterEach
    void tearDown() {
        dataSource.close();
    }

    private PaymentRepository repository() {
        PaymentRepository payments = new PaymentRepository(dataSource, PaymentEvents.writeOnly(outbox, JSON));
        payments.createTable();
        return payments;
    }

    @Test
    void markingPaidWritesOnePaymentPaidEventWithTheRowsFigures() throws Exception {
        outbox.migrate();
        PaymentRepository payments = repository();
        String id = payments.createPending("rk-1", REQUEST);

        payments.markPaid(id, "ch_1");

        assertThat(outbox.pendingCount()).isEqualTo(1);
        List<String[]> events = events();
        assertThat(events).hasSize(1);
        assertThat(events.get(0)[0]).isEqualTo(id);
        assertThat(events.get(0)[1]).isEqualTo(PaymentEvents.PAID);
        JsonNode payload = JSON.readTree(events.get(0)[2]);
        assertThat(payload.get("paymentId").asString()).isEqualTo(id);
        assertThat(payload.get("card").asString()).isEqualTo("card-1");
        assertThat(payload.get("amount").asLong()).isEqualTo(1250);
        assertThat(payload.get("currency").asString()).isEqualTo("EUR");
        assertThat(payload.get("chargeId").asString()).isEqualTo("ch_1");
    }

    @Test
    void markingAPaidPaymentPaidAgainWritesNoSecondEvent() throws Exception {
        outbox.migrate();
        PaymentRepository payments = repository();
        String id = payments.createPending("rk-1", REQUEST);

        payments.markPaid(id, "ch_1");
        payments.markPaid(id, "ch_1");

        assertThat(events()).hasSize(1);
        assertThat(payments.find(id).orElseThrow().status()).isEqualTo(Payment.PAID);
    }

    @Test
    void ifTheEventCannotBeWrittenThePaymentStaysPending() {
        // No outbox tables: the append fails inside the transaction that set the status.
        PaymentRepository payments = repository();
        String id = payments.createPending("rk-1", REQUEST);

        assertThatThrownBy(() -> payments.markPaid(id, "ch_1")).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("cannot mark the payment paid");

        assertThat(payments.find(id).orElseThrow().status()).as("rolled back with the event").isEqualTo(Payment.PENDING);
    }

    @Test
    void withoutEventsMarkingPaidWritesNoOutboxRow() throws Exception {
        outbox.migrate();
        PaymentRepository payments = new PaymentRepository(dataSource);
        payments.createTable();
        String id = payments.createPending("rk-1", REQUEST);

        payments.markPaid(id, "ch_1");

        assertThat(outbox.pendingCount()).isZero();
        assertThat(payments.find(id).orElseThrow().status()).isEqualTo(Payment.PAID);
    }

    @Test
    void markingAnUnknownPaymentPaidFailsAndWritesNothing() throws Exception {
        outbox.migrate();
        PaymentRepository payments = repository();

        assertThatThrownBy(() -> payments.markPaid("pay_nope", "ch_1")).hasMessageContaining("no payment row to mark paid");

        assertThat(outbox.pendingCount()).isZero();
    }

    /** (aggregate id, event type, payload) of every outbox row. */
    private List<String[]> events() throws Exception {
        List<String[]> rows = new ArrayList<>();
        try (Connection c = dataSource.getConnection(); Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT aggregate_id, event_type, payload FROM " + outbox.tableName() + " ORDER BY sequence")) {
            while (rs.next()) {
                rows.add(new String[] {rs.getString(1), rs.getString(2), new String(rs.getBytes(3), StandardCharsets.UTF_8)});
            }
        }
        return rows;
    }
}
