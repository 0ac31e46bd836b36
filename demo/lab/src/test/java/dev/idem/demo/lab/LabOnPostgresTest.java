package dev.idem.demo.lab;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.testing.RealServices;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The lab's {@code --db}: the gateway and the service keep their records in PostgreSQL (a schema of this test's own). */
class LabOnPostgresTest {
    @TempDir
    Path out;
    private String serverUrl;
    private String schema;

    @BeforeEach
    void createSchema() throws Exception {
        serverUrl = RealServices.postgresUrl();
        schema = "lab_test_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
        try (Connection c = DriverManager.getConnection(serverUrl); Statement st = c.createStatement()) {
            st.execute("CREATE SCHEMA " + schema);
        }
    }

    @AfterEach
    void dropSchema() throws Exception {
        try (Connection c = DriverManager.getConnection(serverUrl); Statement st = c.createStatement()) {
            st.execute("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
        }
    }

    @Test
    @Timeout(120)
    void aLabOnPostgresCountsFromTheLedgerKeptInPostgres() throws Exception {
        String db = serverUrl + (serverUrl.contains("?") ? "&" : "?") + "currentSchema=" + schema;
        LabSettings settings = new LabSettings(12, 4, 1, 3, db, out, Scenarios.select(List.of("retry-no-key", "idem-sigkill")));

        LabReport report = new Lab(settings, TestComponents.fromClassPath(),
                new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8)).run();

        ScenarioResult naive = report.results().get(0);
        ScenarioResult idem = report.results().get(1);
        assertThat(naive.figures().duplicated()).as("retrying without a key duplicates").isPositive();
        assertThat(idem.kills()).isEqualTo(1);
        assertThat(idem.figures().lost()).isZero();
        assertThat(idem.figures().duplicated()).isZero();
        assertThat(idem.figures().charges()).isEqualTo(12);
        assertThat(report.allAsExpected()).isTrue();
        try (Connection c = DriverManager.getConnection(db); Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT count(*) FROM gateway_charge WHERE card LIKE 'lab-%-retry-no-key-%' OR card LIKE 'lab-%-idem-sigkill-%'")) {
            rs.next();
            assertThat(rs.getInt(1)).as("the ledger the lab counted is PostgreSQL's")
                    .isEqualTo(naive.figures().charges() + idem.figures().charges());
        }
    }
}
