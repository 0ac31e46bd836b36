package dev.idem.demo.lab;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.testing.RealServices;
import dev.idem.testing.ReplicatedPostgres;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The failover row, short: three stand-in service instances on a PostgreSQL primary and standby the
 * row starts itself, the standby cut off, the primary SIGKILLed mid-traffic and the standby promoted.
 * Asynchronous replication forgets payments it acknowledged, and their charges run again when they
 * are sent again (the gateway replays them); synchronous replication has every
 * must-be-0 figure at 0, 500s included, and the services answered 503 while no primary took writes.
 */
@Timeout(240)
class FailoverRowTest {
    private static final FleetSettings SHORT = new FleetSettings(3, 60, 10, 60, 0, 0, 0, 0, 0, 0, "test", FleetCoalesce.OFF);

    @TempDir
    static Path out;
    private static LabReport report;
    private static String printed;

    @BeforeAll
    static void runTheRow() throws Exception {
        ReplicatedPostgres.unavailableReason().ifPresent(why -> RealServices.unavailable(ReplicatedPostgres.SERVICE, why));
        // The row starts its own servers; the lab's database is its SQLite default.
        LabSettings settings = new LabSettings(PatternRun.ITEMS, 4, 1, 7, null, out,
                Catalogue.select(List.of("failover")), SHORT);
        ByteArrayOutputStream text = new ByteArrayOutputStream();
        report = new Lab(settings, TestComponents.fromClassPath(), new PrintStream(text, true, StandardCharsets.UTF_8)).run();
        printed = text.toString(StandardCharsets.UTF_8);
        System.out.println(printed);
    }

    @Test
    void asynchronousReplicationLosesAcknowledgedPaymentsAndSynchronousHasEveryMustBeZeroFigureAtZero() {
        PatternResult row = report.patterns().get(0);
        assertThat(row.skipped()).as("the row ran").isNull();
        assertThat(row.sides()).as("both sides ran (note: " + row.note() + ")").hasSize(2);
        SideResult async = row.sides().get(0);
        SideResult sync = row.sides().get(1);

        assertThat(async.failover().lagBytes()).as("the asynchronous standby was behind at the kill").isPositive();
        assertThat(async.failover().recordsLost()).as("acknowledged payments the promoted standby forgot").isPositive();
        assertThat(async.failover().chargedAgain()).as("their charges ran again (the gateway replayed them)").isPositive();
        assertThat(async.asExpected()).isTrue();

        FleetFigures f = sync.fleet();
        assertThat(sync.failover().recordsLost()).as("acknowledged payments lost").isZero();
        assertThat(sync.failover().chargedAgain()).as("charges run again for payments answered 2xx").isZero();
        assertThat(f.chargedTwice()).as("charged 2+").isZero();
        assertThat(f.okWithoutCharge()).as("2xx no charge").isZero();
        assertThat(f.bodiesDiffer()).as("bodies differ").isZero();
        assertThat(f.chargeNotOnRow()).as("charge not on row").isZero();
        assertThat(f.twoRowsPerKey()).as("2 rows/key").isZero();
        assertThat(f.unaskedCharges()).as("unasked charges").isZero();
        assertThat(f.answered500()).as("500s").isZero();
        assertThat(f.gaveUp()).as("every payment confirmed").isZero();
        assertThat(sync.failover().acknowledged()).isEqualTo(SHORT.payments());
        assertThat(sync.failover().switchMillis()).as("the standby was promoted").isPositive();
        assertThat(sync.wrong()).isZero();
        assertThat(report.allAsExpected()).isTrue();
    }

    @Test
    void theReportsJsonHasEachSidesFailoverFigures() throws Exception {
        tools.jackson.databind.JsonNode json = tools.jackson.databind.json.JsonMapper.builder().build()
                .readTree(java.nio.file.Files.readString(out.resolve(Lab.JSON_FILE)));
        String text = json.toString();
        assertThat(text).contains("\"failover\"", "\"lagBytes\"", "\"recordsLost\"", "\"chargedAgain\"", "\"synchronous\"");
    }

    @Test
    void theRowsOwnTableFitsIn120Columns() {
        String table = printed.substring(printed.indexOf("The failover:"));
        assertThat(table.lines().takeWhile(l -> !l.startsWith("report:"))).allSatisfy(l -> assertThat(l.length()).isLessThanOrEqualTo(120));
        assertThat(table).contains("asynchronous", "synchronous", "lag at kill");
    }

    @Test
    void theRowIsOptIn() {
        assertThat(Catalogue.all().patterns()).doesNotContain(FailoverRow.ROW);
        assertThat(Catalogue.select(List.of("failover")).patterns()).containsExactly(FailoverRow.ROW);
    }
}
