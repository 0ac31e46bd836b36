package dev.idem.demo.lab;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Comparator;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The lab's terminal output fits a 120-column terminal, and the ledger and pattern rows sit in tables of their own. */
class LabOutputWidthTest {
    @Test
    @DisplayName("every line of the tables and legends of a report with every row is at most 120 characters")
    void everyLineFits() {
        String text = FixtureReports.text();
        String widest = text.lines().max(Comparator.comparingInt(String::length)).orElseThrow();

        System.out.println("lab output: widest line " + widest.length() + " characters: " + widest);
        assertThat(text.lines()).allSatisfy(line -> assertThat(line.length()).as(line).isLessThanOrEqualTo(TableRenderer.WIDTH));
    }

    @Test
    @DisplayName("--list fits 120 columns too, and a row's tag (what it needs) is never split")
    void theListingFits() {
        String listing = LabMain.listing();

        assertThat(listing.lines()).allSatisfy(line -> assertThat(line.length()).as(line).isLessThanOrEqualTo(TableRenderer.WIDTH));
        assertThat(listing).contains("[PostgreSQL only]", "[redis-server]", "[Kafka broker]");
    }

    @Test
    @DisplayName("the ledger rows are in the ledger's tables only, the pattern rows in theirs, the fleet in its own")
    void rowsSitInTheirOwnTables() {
        String text = FixtureReports.text();
        String payments = text.substring(0, text.indexOf("Payment events"));
        String ledger = text.substring(text.indexOf("Payment events"), text.indexOf("The other patterns"));

        assertThat(payments).contains("idem-lossy").doesNotContain("ledger-no-inbox", "ledger-inbox", "upsert-redelivery");
        assertThat(ledger).contains("ledger-no-inbox", "ledger-inbox", "applied 2+").doesNotContain("idem-lossy", "upsert-redelivery");
        assertThat(text.substring(text.indexOf("The other patterns"))).contains("upsert-redelivery", "lock-cost", "The fleet");
    }

    @Test
    @DisplayName("a cell too wide for its column wraps at a space inside the column, and a long word is cut")
    void wideCellsWrapInsideTheirColumn() {
        assertThat(TableRenderer.wrap("lost responses + restart before retries", 20)).containsExactly("lost responses +", "restart before", "retries");
        assertThat(TableRenderer.wrap("abcdefghij", 4)).containsExactly("abcd", "efgh", "ij");
        assertThat(TableRenderer.wrap("", 4)).containsExactly("");
    }

    @Test
    @DisplayName("a finished row's progress line says what the row counts: charges for a payments row, ledger entries for a messaging row")
    void progressLinesSayWhatTheRowShows() {
        LabReport report = FixtureReports.full();
        ScenarioResult noInbox = report.results().stream().filter(r -> r.scenario().id().equals("ledger-no-inbox")).findFirst().orElseThrow();
        ScenarioResult lossy = report.results().stream().filter(r -> r.scenario().id().equals("idem-lossy")).findFirst().orElseThrow();

        assertThat(Progress.counted(noInbox)).isEqualTo("73 ledger entries for 40 paid payments, 33 applied 2+, 0 missing, 2 consumer kills");
        assertThat(Progress.counted(lossy)).startsWith("40 charges for 40 payments, 0 lost, 0 charged 2+");
        PatternResult upsert = report.patterns().stream().filter(p -> p.row() == UpsertRow.ROW).findFirst().orElseThrow();
        assertThat(Progress.shown(upsert.sides().get(0))).isEqualTo("plain INSERT per delivery: 10 of 40 wrong, shows it fails");
        assertThat(Progress.shown(upsert.sides().get(1))).isEqualTo("upsert on (order_id, line_id): 0 of 40 wrong, shows it holds");
    }
}
