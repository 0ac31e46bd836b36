package dev.idem.demo.lab;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.testing.RealServices;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The pattern rows that need no broker, in their short form on SQLite files: natural-key upserts,
 * state assignments, the re-run windowed aggregate, and idem's Redis store on a private
 * redis-server restarted without and with the append-only file. One lab runs them all; each test
 * checks one row's naive side fails and its idempotent side holds, counted from the sinks.
 */
@Timeout(180)
class PatternRowsTest {
    @TempDir
    static Path out;
    private static PatternRun run;

    @BeforeAll
    static void runTheRows() throws Exception {
        if (PrivateRedis.binary().isEmpty()) {
            RealServices.unavailable("redis-server", "the redis-restart row starts a redis-server of its own, and none is installed");
        }
        run = PatternRun.of(out, null, TestComponents.fromClassPath(), "upsert", "state", "window", "store");
    }

    @Test
    void aPlainInsertDuplicatesRedeliveredLinesAndAnUpsertOnTheNaturalKeyDoesNot() {
        PatternResult result = run.naiveFailsIdempotentHolds("upsert-redelivery");

        assertThat(result.sides().get(0).items()).isEqualTo(PatternRun.ITEMS);
        assertThat(result.sides().get(1).sink()).isEqualTo(PatternRun.ITEMS + " rows");
        assertThat(result.note()).contains("deliveries of " + PatternRun.ITEMS + " lines");
    }

    @Test
    void anIncrementAppliedAgainOverpaysAndAStateAssignmentDoesNot() {
        PatternResult result = run.naiveFailsIdempotentHolds("state-vs-increment");

        assertThat(result.sides().get(0).items()).isEqualTo(PatternRun.ITEMS);
        String idem = result.sides().get(1).sink();
        String[] amounts = idem.replace("paid ", "").replace(" due", "").split(" of ");
        assertThat(amounts[0]).as("paid equals due on the state side").isEqualTo(amounts[1]);
    }

    @Test
    void anAppendSinkDoublesOnARerunAndWindowedTotalsDoNot() {
        PatternResult result = run.naiveFailsIdempotentHolds("window-rerun");

        assertThat(result.sides().get(0).items()).as("minute x currency cells of " + PatternRun.ITEMS + " charges").isBetween(2, 15);
        assertThat(result.sides().get(0).wrong()).as("every cell of the append sink is doubled").isEqualTo(result.sides().get(0).items());
    }

    @Test
    void aRedisWithoutTheAppendOnlyFileForgetsKeysAcrossARestartAndOneWithAlwaysFsyncDoesNot() {
        PatternResult result = run.naiveFailsIdempotentHolds("redis-restart");

        assertThat(result.sides().get(0).items()).isEqualTo(PatternRun.ITEMS);
        assertThat(result.sides().get(0).sink()).as("every retry charged again").startsWith(2 * PatternRun.ITEMS + " charges; 0 of");
        assertThat(result.sides().get(1).sink()).as("every retry replayed")
                .isEqualTo(PatternRun.ITEMS + " charges; " + PatternRun.ITEMS + " of " + PatternRun.ITEMS + " retries replayed");
        assertThat(result.note()).as("idem's store refuses the first server by default")
                .contains("refused", "appendonly is 'no'", "PersistenceCheck.SKIP");
    }

    @Test
    void theTableTheHtmlAndTheJsonCarryThePatternRows() throws Exception {
        assertThat(run.printed).contains("The other patterns", "upsert-redelivery", "yes: fails", "yes: holds")
                .doesNotContain("lost requests + responses");
        String html = Files.readString(out.resolve(Lab.HTML_FILE));
        assertThat(html).contains(Group.UPSERT.title(), Group.WINDOW.title(), Group.STORE.title(), "items right and wrong per side")
                .doesNotContain("Charges per payment");
        JsonNode json = JsonMapper.builder().build().readTree(Files.readString(out.resolve(Lab.JSON_FILE)));
        assertThat(json.get("patterns").size()).isEqualTo(4);
        assertThat(json.get("patterns").get(0).get("id").asString()).isEqualTo("redis-restart");
        assertThat(json.get("patterns").get(0).get("sides").get(0).get("wrong").asInt()).isEqualTo(PatternRun.ITEMS);
        assertThat(run.report.allAsExpected()).isTrue();
    }
}
