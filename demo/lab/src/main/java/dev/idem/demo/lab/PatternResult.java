package dev.idem.demo.lab;

import java.util.List;

/**
 * A pattern row's outcome: one result per side, in the row's order.
 *
 * @param note    one line the row adds to the table (what a library refused, a reader's view), or null
 * @param skipped why the row did not run (a server it needs does not answer), or null if it ran
 */
public record PatternResult(PatternRow row, List<SideResult> sides, String note, long millis, String skipped) {
    public PatternResult {
        sides = List.copyOf(sides);
    }

    static PatternResult skipped(PatternRow row, String why) {
        return new PatternResult(row, List.of(), null, 0, why);
    }

    /** A row that broke before it could count: it shows nothing, so it fails. */
    static PatternResult failed(PatternRow row, String why, long millis) {
        return new PatternResult(row, List.of(), "failed: " + why, millis, null);
    }

    /** A skipped row shows nothing and fails nothing: the table says why it did not run. */
    public boolean asExpected() {
        return skipped != null || sides.size() == row.sides().size() && sides.stream().allMatch(SideResult::asExpected);
    }
}
