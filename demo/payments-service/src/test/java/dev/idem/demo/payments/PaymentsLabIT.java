package dev.idem.demo.payments;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.demo.gateway.CardGatewayMain;
import dev.idem.demo.lab.Abandonment;
import dev.idem.demo.lab.Components;
import dev.idem.demo.lab.Expectation;
import dev.idem.demo.lab.Fault;
import dev.idem.demo.lab.Figures;
import dev.idem.demo.lab.LedgerFigures;
import dev.idem.demo.ledger.LedgerConsumerMain;
import dev.idem.demo.lab.JavaApp;
import dev.idem.demo.lab.Lab;
import dev.idem.demo.lab.LabReport;
import dev.idem.demo.lab.LabSettings;
import dev.idem.demo.lab.Scenario;
import dev.idem.demo.lab.ScenarioResult;
import dev.idem.demo.lab.Scenarios;
import dev.idem.demo.proxy.FaultProxyMain;
import dev.idem.testing.RealServices;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A short {@code ./idem lab} — every scenario, a couple of dozen payments each — with the packaged
 * payments service, the real card gateway and fault proxy in their own JVMs, real SIGKILLs and
 * restarts, on SQLite and on PostgreSQL. The idempotent rows lose and duplicate nothing and reply
 * identically per key; each naive row shows the failure it exists to show. All counted by the lab
 * from the gateway's ledger. The messaging rows add a real Kafka broker and the ledger consumer,
 * killed once after its database commit and before its offset commit: without the inbox the
 * redelivered batch is applied twice, with it every payment has exactly one entry. The two rows of a
 * retry after the key's response expired run in a short lab of their own, on SQLite: they wait out a
 * retention and start the service twice, which the database does not change.
 */
class PaymentsLabIT {
    private static final int PAYMENTS = 24;
    private static final int LATE_RETRY_PAYMENTS = 12;
    private static final int GIVE_UP_PAYMENTS = 12;
    /**
     * Every row but the late-retry ones ({@link #aRetryAfterTheResponseExpiredChargesAgainWithoutTombstonesAndIsRefusedWithThem})
     * and the give-up ones ({@link #clientsThatGiveUpAfterTheChargeLeaveItUnrecordedWithoutTheCompleterAndNotWithIt}), which run alone.
     */
    private static final List<Scenario> EVERY_OTHER_ROW = Scenarios.all().stream()
            .filter(s -> s.fault() != Fault.RETRY_AFTER_EXPIRY && s.fault() != Fault.GIVE_UP_AFTER_CHARGE).toList();

    @TempDir
    Path out;

    @Test
    @Timeout(240)
    void aShortLabOnSqliteShowsEveryNaiveFailureAndNoneWithIdem() throws Exception {
        LabReport report = runLab(null, PAYMENTS, EVERY_OTHER_ROW);

        assertEveryRow(report);
        assertThat(out.resolve(Lab.HTML_FILE)).exists();
        assertThat(Files.readString(out.resolve(Lab.HTML_FILE))).contains("<svg", "Idempotent-Replayed: true");
        assertThat(Files.readString(out.resolve(Lab.JSON_FILE))).contains("\"idem-sigkill\"");
    }

    @Test
    @Timeout(180)
    void aRetryAfterTheResponseExpiredChargesAgainWithoutTombstonesAndIsRefusedWithThem() throws Exception {
        List<Scenario> rows = Scenarios.select(List.of("expired-no-tombstones", "expired-tombstones"));
        LabReport report = runLab(null, LATE_RETRY_PAYMENTS, rows);
        Map<String, ScenarioResult> byId = report.results().stream().collect(Collectors.toMap(r -> r.scenario().id(), Function.identity()));

        Figures without = byId.get("expired-no-tombstones").figures();
        assertThat(without.duplicated()).as("without tombstones: every late retry ran again and charged the card again")
                .isEqualTo(LATE_RETRY_PAYMENTS);
        assertThat(without.charges()).isEqualTo(2 * LATE_RETRY_PAYMENTS);
        assertThat(without.expired()).as("without tombstones: no 410").isZero();

        Figures with = byId.get("expired-tombstones").figures();
        assertThat(with.expired()).as("with tombstones: every late retry answered 410 key-expired").isEqualTo(LATE_RETRY_PAYMENTS);
        assertThat(with.charges()).as("with tombstones: nothing ran again").isEqualTo(LATE_RETRY_PAYMENTS);
        assertThat(with.duplicated()).isZero();
        assertThat(with.lost()).isZero();
        assertThat(with.requestsSent()).as("each payment: its first request and its late retry").isEqualTo(2 * LATE_RETRY_PAYMENTS);
        assertThat(report.allAsExpected()).as("both rows show what they exist to show").isTrue();
        assertThat(Files.readString(out.resolve(Lab.JSON_FILE))).contains("\"expired-tombstones\"", "\"answeredKeyExpired\"");
    }

    @Test
    @Timeout(180)
    void clientsThatGiveUpAfterTheChargeLeaveItUnrecordedWithoutTheCompleterAndNotWithIt() throws Exception {
        LabReport report = runLab(null, GIVE_UP_PAYMENTS, Scenarios.select(List.of("gave-up-no-completer", "gave-up-completer")));
        Map<String, ScenarioResult> byId = report.results().stream().collect(Collectors.toMap(r -> r.scenario().id(), Function.identity()));

        Abandonment without = byId.get("gave-up-no-completer").abandonment();
        assertThat(without.charged()).as("without the completer: a kill fell after a charge").isPositive();
        assertThat(without.unrecorded()).as("without the completer: charged payments stay unrecorded while nobody retries")
                .isPositive();
        assertThat(without.lateRan()).as("without the completer: the late retries finish the payments themselves").isPositive();

        ScenarioResult withRow = byId.get("gave-up-completer");
        Abandonment with = withRow.abandonment();
        assertThat(with.charged()).as("with the completer: a kill fell after a charge").isPositive();
        assertThat(with.unrecorded()).as("with the completer: every charged payment recorded without its client").isZero();
        assertThat(with.lateReplayed()).as("with the completer: each charged payment's late retry replays the stored answer")
                .isGreaterThanOrEqualTo(with.charged());
        assertThat(with.lateOther()).isZero();
        Figures f = withRow.figures();
        assertThat(f.duplicated()).as("charged twice").isZero();
        assertThat(f.charges()).as("one charge per payment").isEqualTo(GIVE_UP_PAYMENTS);
        assertThat(f.differingKeys()).as("keys whose replies differ").isZero();
        assertThat(byId.get("gave-up-no-completer").figures().duplicated()).as("charged twice without the completer").isZero();
        assertThat(report.allAsExpected()).as("both rows show what they exist to show").isTrue();
        assertThat(Files.readString(out.resolve(Lab.JSON_FILE))).contains("\"gave-up-completer\"", "\"chargedNeverRecorded\"");
    }

    @Test
    @Timeout(240)
    void aShortLabOnPostgresShowsTheSameWithTheRecordsInPostgres() throws Exception {
        String server = RealServices.postgresUrl();
        String schema = "lab_it_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
        try (Connection c = DriverManager.getConnection(server); Statement st = c.createStatement()) {
            st.execute("CREATE SCHEMA " + schema);
        }
        try {
            String db = server + (server.contains("?") ? "&" : "?") + "currentSchema=" + schema;
            LabReport report = runLab(db, PAYMENTS, EVERY_OTHER_ROW);

            assertEveryRow(report);
            int charges = report.results().stream().mapToInt(r -> r.figures().charges()).sum();
            try (Connection c = DriverManager.getConnection(db); Statement st = c.createStatement()) {
                assertThat(count(st, "SELECT count(*) FROM gateway_charge WHERE card LIKE 'lab-%' AND card NOT LIKE '%warm-up%'"))
                        .as("the ledger the lab counted is in PostgreSQL").isEqualTo(charges);
                assertThat(count(st, "SELECT count(*) FROM payment_idem_record")).as("the service's keys are in PostgreSQL").isPositive();
                assertThat(count(st, "SELECT count(*) FROM payment WHERE status = 'paid'")).as("the service's payments are in PostgreSQL")
                        .isPositive();
            }
        } finally {
            try (Connection c = DriverManager.getConnection(server); Statement st = c.createStatement()) {
                st.execute("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
            }
        }
    }

    private LabReport runLab(String db, int payments, List<Scenario> scenarios) throws Exception {
        String classPath = System.getProperty("java.class.path");
        Components components = new Components(
                JavaApp.mainClass("card gateway", JavaApp.SMALL_JVM, classPath, CardGatewayMain.class.getName()),
                JavaApp.jar("payments service", JavaApp.SERVICE_JVM, ServiceProcess.jar()),
                JavaApp.mainClass("fault proxy", JavaApp.SMALL_JVM, classPath, FaultProxyMain.class.getName()),
                JavaApp.mainClass("ledger consumer", JavaApp.SMALL_JVM, classPath, LedgerConsumerMain.class.getName()),
                Path.of(System.getProperty("kafka.broker.classpath", "target/kafka-broker.classpath")));
        LabSettings settings = new LabSettings(payments, 4, 1, 7, db, out, scenarios);
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        LabReport report = new Lab(settings, components, new PrintStream(printed, true, StandardCharsets.UTF_8)).run();
        System.out.println(printed.toString(StandardCharsets.UTF_8));
        return report;
    }

    private static void assertEveryRow(LabReport report) {
        Map<String, ScenarioResult> byId = report.results().stream().collect(Collectors.toMap(r -> r.scenario().id(), Function.identity()));
        assertThat(byId.keySet()).containsExactlyInAnyOrderElementsOf(EVERY_OTHER_ROW.stream().map(s -> s.id()).toList());

        assertThat(byId.get("at-most-once").figures().lost()).as("at-most-once loses payments").isPositive();
        for (String id : List.of("retry-no-key", "new-key-per-retry", "key-after-effect", "memory-store")) {
            assertThat(byId.get(id).figures().duplicated()).as(id + " duplicates charges").isPositive();
        }
        assertThat(byId.get("key-after-effect").kills()).as("key-after-effect: the service was SIGKILLed").isEqualTo(1);
        assertThat(byId.get("memory-store").serviceStarts()).as("memory-store: the service restarted").isEqualTo(1);

        for (ScenarioResult result : report.results()) {
            if (result.scenario().expectation() != Expectation.EXACTLY_ONCE) {
                continue;
            }
            String id = result.scenario().id();
            Figures f = result.figures();
            assertThat(f.lost()).as(id + ": lost").isZero();
            assertThat(f.duplicated()).as(id + ": charged more than once").isZero();
            assertThat(f.differingKeys()).as(id + ": keys whose replies differ").isZero();
            assertThat(f.unconfirmed()).as(id + ": charged but unconfirmed").isZero();
            assertThat(f.confirmedWithoutCharge()).as(id + ": confirmed without a charge").isZero();
            assertThat(f.charges()).as(id + ": one charge per payment").isEqualTo(PAYMENTS);
        }
        assertThat(byId.get("idem-sigkill").kills()).as("idem-sigkill: the service was SIGKILLed").isEqualTo(1);
        assertThat(byId.get("idem-lossy").proxyStats().get("responsesDropped")).as("idem-lossy: responses were lost").isPositive();
        assertThat(byId.get("idem-double-click").figures().requestsSent()).as("idem-double-click: concurrent sends")
                .isGreaterThanOrEqualTo(2 * PAYMENTS);
        LedgerFigures naive = byId.get("ledger-no-inbox").ledger();
        assertThat(naive.consumerKills()).as("ledger-no-inbox: the consumer was killed after its commit").isEqualTo(1);
        assertThat(naive.duplicatedEntries()).as("ledger-no-inbox: the redelivered batch was applied again").isPositive();
        assertThat(naive.missing()).as("ledger-no-inbox: nothing lost").isZero();
        LedgerFigures inbox = byId.get("ledger-inbox").ledger();
        assertThat(inbox.consumerKills()).as("ledger-inbox: the consumer was killed after its commit").isEqualTo(1);
        assertThat(inbox.entries()).as("ledger-inbox: one entry per payment").isEqualTo(PAYMENTS);
        assertThat(inbox.duplicatedEntries()).as("ledger-inbox: applied twice").isZero();
        assertThat(inbox.missing()).as("ledger-inbox: missing").isZero();
        assertThat(report.allAsExpected()).as("every row shows what it exists to show").isTrue();
    }

    private static int count(Statement st, String sql) throws Exception {
        try (ResultSet rs = st.executeQuery(sql)) {
            rs.next();
            return rs.getInt(1);
        }
    }
}
