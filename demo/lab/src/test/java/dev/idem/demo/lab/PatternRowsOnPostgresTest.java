package dev.idem.demo.lab;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.testing.RealServices;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The lock row, which runs on PostgreSQL only, and the database rows on PostgreSQL ({@code --db}), in
 * a schema of this test's own: a check without a lock duplicates effects when racers start together,
 * a row lock and a unique INSERT do not, and both report what they cost.
 */
@Timeout(180)
class PatternRowsOnPostgresTest {
    @TempDir
    static Path out;
    private static String server;
    private static String schema;
    private static PatternRun run;

    @BeforeAll
    static void runTheRows() throws Exception {
        server = RealServices.postgresUrl();
        schema = "lab_rows_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
        try (Connection c = DriverManager.getConnection(server); Statement st = c.createStatement()) {
            st.execute("CREATE SCHEMA " + schema);
        }
        String db = server + (server.contains("?") ? "&" : "?") + "currentSchema=" + schema;
        run = PatternRun.of(out, db, TestComponents.fromClassPath(), "lock", "upsert", "state", "window");
    }

    @AfterAll
    static void dropSchema() throws Exception {
        if (schema != null) {
            try (Connection c = DriverManager.getConnection(server); Statement st = c.createStatement()) {
                st.execute("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
            }
        }
    }

    @Test
    void checkingWithoutALockDuplicatesAndARowLockAndAUniqueInsertBothHoldAtACostEachReports() {
        PatternResult result = run.naiveFailsIdempotentHolds("lock-cost");

        assertThat(result.sides()).hasSize(3);
        assertThat(result.sides().get(0).items()).isEqualTo(PatternRun.ITEMS);
        for (SideResult side : result.sides()) {
            assertThat(side.perSecond()).as(side.side().label() + ": attempts per second").isPositive();
            assertThat(side.sink()).contains(PatternRun.ITEMS * LockRow.RACERS + " attempts");
        }
        assertThat(run.printed).contains("lock-cost", "/s");
    }

    @Test
    void withoutAPostgresThatAnswersTheLockRowIsSkippedWithOneLineAndFailsNothing(@TempDir Path elsewhere) throws Exception {
        LabSettings settings = new LabSettings(4, 1, 1, 1, "jdbc:postgresql://127.0.0.1:1/none?user=nobody&password=secret", elsewhere,
                Catalogue.select(List.of("lock")));
        ByteArrayOutputStream printed = new ByteArrayOutputStream();

        LabReport report = new Lab(settings, TestComponents.fromClassPath(), new PrintStream(printed, true, StandardCharsets.UTF_8)).run();

        PatternResult lock = report.patterns().get(0);
        assertThat(lock.skipped()).contains("needs PostgreSQL", "no PostgreSQL answered at jdbc:postgresql://127.0.0.1:1/none")
                .doesNotContain("secret");
        assertThat(report.allAsExpected()).as("a skipped row fails nothing").isTrue();
        String text = printed.toString(StandardCharsets.UTF_8);
        assertThat(text.lines().filter(l -> l.contains("Skipped: needs PostgreSQL"))).hasSize(1);
        assertThat(text).doesNotContain("secret");
    }

    @Test
    void theDatabaseRowsShowTheSameOnPostgres() {
        for (String id : new String[] {"upsert-redelivery", "state-vs-increment", "window-rerun"}) {
            run.naiveFailsIdempotentHolds(id);
        }
        assertThat(run.report.settings().databaseLabel()).contains("currentSchema=" + schema);
    }
}
