package dev.idem.demo.lab;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Kafka rows in their short form, on a real broker (child JVM) and the stream processor in child
 * JVMs halted once at their crash points: an at-least-once processor duplicates its output and a
 * transactional one does not; the transactional one writing to the database duplicates its bookings
 * unless idem's inbox claims the event ids, while its output topic stays exactly once.
 */
@Timeout(300)
class KafkaRowsTest {
    @TempDir
    static Path out;
    private static PatternRun run;

    @BeforeAll
    static void runTheRows() throws Exception {
        run = PatternRun.of(out, null, TestComponents.withKafka(), "kafka");
    }

    @Test
    void anAtLeastOnceProcessorDuplicatesItsOutputAndATransactionalOneDoesNot() {
        PatternResult result = run.naiveFailsIdempotentHolds("kafka-eos");

        assertThat(result.sides().get(0).items()).isEqualTo(PatternRun.ITEMS);
        assertThat(result.sides().get(0).sink()).endsWith("1 kill");
        assertThat(result.sides().get(1).sink()).as("the killed transaction left aborted postings behind").doesNotContain("(+0 aborted)")
                .endsWith("1 kill");
        assertThat(result.note()).contains("read_uncommitted");
    }

    @Test
    void theTransactionStopsAtTheDatabaseUnlessTheInboxClaimsTheEvents() {
        PatternResult result = run.naiveFailsIdempotentHolds("kafka-boundary");

        assertThat(result.sides().get(0).items()).isEqualTo(PatternRun.ITEMS);
        assertThat(result.note()).as("Kafka's own output held on both sides")
                .contains(PatternRun.ITEMS + " and " + PatternRun.ITEMS + " of " + PatternRun.ITEMS + " events exactly once");
    }
}
