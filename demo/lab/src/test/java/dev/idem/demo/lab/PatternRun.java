package dev.idem.demo.lab;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;

/** A short lab of pattern rows only, and the assertion every row's test makes: the naive side fails, the idempotent side holds. */
final class PatternRun {
    /** Items per side in the short form. */
    static final int ITEMS = 16;

    final LabReport report;
    final String printed;
    final Map<String, PatternResult> byId;

    private PatternRun(LabReport report, String printed) {
        this.report = report;
        this.printed = printed;
        this.byId = report.patterns().stream().collect(Collectors.toMap(p -> p.row().id(), Function.identity()));
    }

    /** Runs the named rows with {@link #ITEMS} items and one kill, on SQLite files under {@code out} or on {@code db}. */
    static PatternRun of(Path out, String db, Components components, String... rows) throws InterruptedException {
        LabSettings settings = new LabSettings(ITEMS, 4, 1, 11, db, out, Catalogue.select(List.of(rows)));
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        LabReport report = new Lab(settings, components, new PrintStream(printed, true, StandardCharsets.UTF_8)).run();
        String text = printed.toString(StandardCharsets.UTF_8);
        System.out.println(text);
        return new PatternRun(report, text);
    }

    /** Every naive side has wrong items in its sink and every idempotent side none; every side got the same items. */
    PatternResult naiveFailsIdempotentHolds(String id) {
        PatternResult result = byId.get(id);
        assertThat(result).as(id + " ran").isNotNull();
        assertThat(result.skipped()).as(id + " skipped").isNull();
        assertThat(result.sides()).as(id + ": one result per side (note: " + result.note() + ")").hasSize(result.row().sides().size());
        for (SideResult side : result.sides()) {
            String what = id + ", " + side.side().label() + " (" + side.sink() + ")";
            assertThat(side.items()).as(what + ": items").isPositive().isEqualTo(result.sides().get(0).items());
            if (side.side().expected() == Verdict.FAILS) {
                assertThat(side.wrong()).as(what + ": the naive side fails").isPositive();
            } else {
                assertThat(side.wrong()).as(what + ": the idempotent side holds").isZero();
            }
        }
        assertThat(result.asExpected()).isTrue();
        return result;
    }
}
