package dev.idem.demo.lab;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** Rows grouped by pattern: what --list shows, what --scenarios takes, and the pattern rows' shape. */
class CatalogueTest {
    @Test
    void everyPatternRowHasANaiveSideThatFailsAndAnIdempotentSideThatHolds() {
        assertThat(Patterns.all()).extracting(PatternRow::id).containsExactly("redis-restart", "lock-cost", "upsert-redelivery",
                "state-vs-increment", "window-rerun", "kafka-eos", "kafka-boundary", "fleet", "failover");
        for (PatternRow row : Patterns.all()) {
            assertThat(row.sides().get(0).expected()).as(row.id() + " starts with its naive side").isEqualTo(Verdict.FAILS);
            assertThat(row.sides().subList(1, row.sides().size())).as(row.id() + ": the other sides hold")
                    .extracting(Side::expected).containsOnly(Verdict.HOLDS).isNotEmpty();
        }
        assertThat(Patterns.all()).extracting(PatternRow::group).isSortedAccordingTo(Enum::compareTo);
        assertThat(LockRow.ROW.needs()).isEqualTo(PatternRow.Needs.POSTGRESQL);
        assertThat(FleetRow.ROW.needs()).isEqualTo(PatternRow.Needs.POSTGRESQL);
    }

    @Test
    void aGroupNameSelectsItsRowsAndRowIdsMixWithGroups() {
        Catalogue.Selection kafka = Catalogue.select(List.of("kafka"));
        assertThat(kafka.scenarios()).isEmpty();
        assertThat(kafka.patterns()).extracting(PatternRow::id).containsExactly("kafka-eos", "kafka-boundary");

        Catalogue.Selection inbox = Catalogue.select(List.of("inbox", "window-rerun", "idem-lossy"));
        assertThat(inbox.scenarios()).extracting(Scenario::id).containsExactly("idem-lossy", "ledger-no-inbox", "ledger-inbox");
        assertThat(inbox.patterns()).extracting(PatternRow::id).containsExactly("window-rerun");

        assertThat(Catalogue.select(List.of("keys")).scenarios()).hasSize(13).noneMatch(Scenario::messaging);
        // Every row but the opt-in one, which runs only when named.
        assertThat(Catalogue.select(List.of()).patterns()).hasSize(Patterns.all().size() - 1).doesNotContain(FailoverRow.ROW)
                .isEqualTo(Patterns.byDefault());
        assertThat(Catalogue.select(List.of()).scenarios()).hasSize(Scenarios.all().size());
    }

    @Test
    void anUnknownNameIsRefusedWithTheGroupsAndRowsThatExist() {
        assertThatThrownBy(() -> Catalogue.select(List.of("upsert", "upserts")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("[upserts]").hasMessageContaining("groups: keys, inbox, store, lock, upsert")
                .hasMessageContaining("rows: at-most-once").hasMessageContaining("kafka-boundary");
    }

    @Test
    void theListingShowsEveryRowUnderItsGroup() {
        String listing = LabMain.listing();

        assertThat(listing).contains("keys: " + Group.KEYS.title(), "inbox: " + Group.INBOX.title(), "kafka: " + Group.KAFKA.title());
        assertThat(listing.indexOf("lock: ")).isLessThan(listing.indexOf("  lock-cost")).isGreaterThan(listing.indexOf("  redis-restart"));
        assertThat(listing.indexOf("inbox: ")).isLessThan(listing.indexOf("  ledger-no-inbox"));
        assertThat(listing).contains("[PostgreSQL only]", "[redis-server]", "[Kafka broker]", "(fails)", "(holds)");
        for (String id : Catalogue.rowIds()) {
            assertThat(listing).contains("  " + id + " ");
        }
    }

    @Test
    void aSettingsOfPatternRowsAloneIsARun() {
        LabSettings settings = new LabSettings(1, 1, 1, 1, null, java.nio.file.Path.of("target"), Catalogue.select(List.of("state")));

        assertThat(settings.scenarios()).isEmpty();
        assertThat(settings.patterns()).containsExactly(StateRow.ROW);
    }

    @Test
    void anAtLeastOnceScheduleDeliversEveryMessageAndSomeAgainLater() {
        List<Integer> schedule = Deliveries.atLeastOnce(40, new Random(5));

        for (int i = 0; i < 40; i++) {
            int message = i;
            assertThat(schedule).as("message " + i).contains(message);
            assertThat(schedule.stream().filter(m -> m == message).count()).as("message " + i + " deliveries").isBetween(1L, 3L);
        }
        assertThat(schedule.size()).as("some are redelivered").isGreaterThan(40);
        assertThat(Deliveries.atLeastOnce(40, new Random(5))).as("seeded").isEqualTo(schedule);
        for (int i = 0; i < 40; i++) {
            assertThat(schedule.indexOf(i)).as("the first delivery of " + i + " comes before its repeats")
                    .isLessThanOrEqualTo(schedule.lastIndexOf(i));
        }
    }
}
