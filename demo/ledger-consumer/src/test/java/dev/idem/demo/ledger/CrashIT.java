package dev.idem.demo.ledger;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.idem.jdbc.Dialect;
import dev.idem.inbox.Inbox;
import dev.idem.jdbc.Sqlite;
import dev.idem.testing.RealServices;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * The demo's point, with real processes: 30 payment events, a consumer that halts right after the
 * database commit that brings it to 5 entries (before the offset commit), and a restart without the
 * crash point that runs until the group has committed every record. The records whose offsets were
 * not committed are delivered again; only the inbox keeps them from being written twice.
 */
@ExtendWith(TestBroker.class)
class CrashIT {
    private static final int EVENTS = 30;
    private static final int CRASH_AFTER = 5;
    private static final Duration TIMEOUT = Duration.ofSeconds(60);

    @TempDir
    Path dir;

    @Test
    void withoutTheInboxTheBatchCommittedBeforeTheCrashIsWrittenAgain() throws Exception {
        Path dataDir = Files.createDirectories(dir.resolve("data"));
        try (HikariDataSource db = pool(Sqlite.url(dataDir.resolve(LedgerDatabase.SQLITE_FILE)))) {
            Outcome outcome = crashAndRestart("no-inbox", List.of("--data-dir", dataDir.toString()), List.of(),
                    new LedgerTable(db, Dialect.SQLITE));

            assertThat(outcome.entries()).as("entries after the restart").hasSizeGreaterThan(EVENTS);
            // The restart wrote every record whose offset was not committed: those already written again.
            assertThat(outcome.entries()).hasSize((int) (outcome.writtenAtCrash() + outcome.lagAtCrash()));
            assertThat(paymentIds(outcome.entries())).isEqualTo(outcome.paymentIds());
        }
    }

    @Test
    void withTheInboxEachPaymentIsWrittenOnceAcrossTheCrash() throws Exception {
        Path dataDir = Files.createDirectories(dir.resolve("data"));
        try (HikariDataSource db = pool(Sqlite.url(dataDir.resolve(LedgerDatabase.SQLITE_FILE)))) {
            Outcome outcome = crashAndRestart("inbox", List.of("--data-dir", dataDir.toString()), List.of(),
                    new LedgerTable(db, Dialect.SQLITE));

            assertExactlyOnce(outcome);
        }
    }

    @Test
    void withTheInboxOnPostgresEachPaymentIsWrittenOnceAcrossTheCrash() throws Exception {
        String url = RealServices.postgresUrl();
        String schema = "ledger_it_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
        try (HikariDataSource admin = pool(url); Connection c = admin.getConnection(); Statement st = c.createStatement()) {
            st.execute("CREATE SCHEMA " + schema);
        }
        String schemaUrl = url + (url.contains("?") ? "&" : "?") + "currentSchema=" + schema;
        try (HikariDataSource db = pool(schemaUrl)) {
            String suffix = suffix();
            String group = "ledger-inbox-" + suffix;
            // What an earlier lab run left behind, which --reset must clear: a ledger entry, and an inbox
            // row of this consumer under the message id of the first event to come (kept, it would make
            // that event a duplicate). Another consumer's row must survive.
            LedgerTable ledger = new LedgerTable(db, Dialect.POSTGRESQL);
            ledger.migrate();
            try (Connection c = db.getConnection()) {
                LedgerTable.append(c, new PaymentEvent("pay_stale", "card-stale", 1, "EUR"), "msg-stale");
            }
            Inbox inbox = Inbox.builder(db).build();
            inbox.migrate();
            inbox.process(group, "msg-" + suffix + "-0", (connection, message) -> { });
            inbox.process("another-consumer", "msg-other", (connection, message) -> { });

            Outcome outcome = crashAndRestart("inbox", suffix, List.of("--db", schemaUrl), List.of("--reset"), ledger);

            assertExactlyOnce(outcome);
            assertThat(inboxRows(db, "another-consumer")).as("another consumer's inbox rows").isEqualTo(1);
            assertThat(outcome.entries().get(0).get("entryId").longValue()).as("entry ids start again at 1").isEqualTo(1);
        } finally {
            try (HikariDataSource admin = pool(url); Connection c = admin.getConnection(); Statement st = c.createStatement()) {
                st.execute("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
            }
        }
    }

    private static void assertExactlyOnce(Outcome outcome) {
        // The crash left rows whose records were not committed to Kafka, so the restart got them again ...
        assertThat(outcome.writtenAtCrash() + outcome.lagAtCrash()).as("written at the crash + lag at the crash").isGreaterThan(EVENTS);
        // ... and wrote none of them twice.
        assertThat(outcome.entries()).hasSize(EVENTS);
        assertThat(paymentIds(outcome.entries())).isEqualTo(outcome.paymentIds());
    }

    /**
     * @param databaseArgs      --data-dir or --db, for both starts
     * @param firstStartArgs    only for the start that crashes
     */
    private Outcome crashAndRestart(String mode, List<String> databaseArgs, List<String> firstStartArgs, LedgerTable ledger) throws Exception {
        return crashAndRestart(mode, suffix(), databaseArgs, firstStartArgs, ledger);
    }

    private Outcome crashAndRestart(String mode, String suffix, List<String> databaseArgs, List<String> firstStartArgs,
                                    LedgerTable ledger) throws Exception {
        String bootstrap = TestBroker.broker().bootstrapServers();
        String topic = "payments-" + suffix;
        String group = "ledger-" + mode + "-" + suffix;
        TestBroker.broker().createTopic(topic, 2);
        Events.send(Events.payments(topic, suffix, EVENTS));
        Set<String> paymentIds = IntStream.range(0, EVENTS).mapToObj(i -> suffix + "-" + i).collect(Collectors.toSet());

        List<String> args = new ArrayList<>(List.of("--kafka", bootstrap, "--topic", topic, "--group", group, "--mode", mode));
        args.addAll(databaseArgs);
        List<String> crashing = new ArrayList<>(args);
        crashing.addAll(firstStartArgs);
        crashing.addAll(List.of("--crash-after", Integer.toString(CRASH_AFTER)));
        int port = LedgerProcess.freePort();

        LedgerProcess first = LedgerProcess.start(port, dir.resolve("first.log"), crashing);
        int status;
        try {
            status = first.awaitExit(TIMEOUT);
        } finally {
            first.close();
        }
        assertThat(status).as("exit status at the crash point; output:\n%s", first.output()).isEqualTo(CrashPoint.EXIT_STATUS);
        assertThat(first.output()).contains("ledger-consumer: crash point reached after ").contains("(database committed, offsets not)");
        long writtenAtCrash = ledger.entries().size();
        long lagAtCrash;
        try (Lag lag = new Lag(bootstrap, topic, group)) {
            lagAtCrash = lag.current();
        }
        assertThat(writtenAtCrash).as("entries committed by the crashed process").isGreaterThanOrEqualTo(CRASH_AFTER);
        assertThat(lagAtCrash).as("records whose offsets the crashed process did not commit").isPositive();

        try (LedgerProcess second = LedgerProcess.startUp(port, dir.resolve("second.log"), args)) {
            second.awaitNoLag(TIMEOUT);
            JsonNode ledgerJson = second.json("/ledger");
            List<JsonNode> entries = new ArrayList<>();
            ledgerJson.get("entries").forEach(entries::add);
            assertThat(ledgerJson.get("count").intValue()).isEqualTo(entries.size());
            return new Outcome(writtenAtCrash, lagAtCrash, entries, paymentIds);
        }
    }

    private record Outcome(long writtenAtCrash, long lagAtCrash, List<JsonNode> entries, Set<String> paymentIds) {
    }

    private static Set<String> paymentIds(List<JsonNode> entries) {
        Set<String> ids = new HashSet<>();
        entries.forEach(e -> ids.add(e.get("paymentId").stringValue()));
        return ids;
    }

    private static int inboxRows(HikariDataSource db, String consumer) throws SQLException {
        try (Connection c = db.getConnection(); PreparedStatement ps = c.prepareStatement("SELECT count(*) FROM idem_inbox WHERE consumer = ?")) {
            ps.setString(1, consumer);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getInt(1);
            }
        }
    }

    static String suffix() {
        return UUID.randomUUID().toString().substring(0, 8);
    }

    static HikariDataSource pool(String url) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(url);
        config.setMaximumPoolSize(2);
        config.setMinimumIdle(0);
        config.setPoolName("ledger-it");
        return new HikariDataSource(config);
    }
}
