package dev.idem.demo.lab;

import java.util.List;

/**
 * The rows of the lesson's other patterns and claims, in table order (by {@link Group}): each a naive
 * side and an idempotent side under one fault, counted from their sinks.
 */
public final class Patterns {
    private static final List<PatternRow> ALL = List.of(RedisRow.ROW, LockRow.ROW, UpsertRow.ROW, StateRow.ROW, WindowRow.ROW,
            KafkaRows.INSIDE, KafkaRows.BOUNDARY, FleetRow.ROW, FailoverRow.ROW);
    /** Rows that run only when named (by id or group): they take minutes of their own. */
    private static final List<PatternRow> OPT_IN = List.of(FailoverRow.ROW);

    private Patterns() {
    }

    public static List<PatternRow> all() {
        return ALL;
    }

    /** What a lab without {@code --scenarios} runs: every row but the opt-in ones. */
    public static List<PatternRow> byDefault() {
        return ALL.stream().filter(row -> !optIn(row)).toList();
    }

    /** Whether the row runs only when {@code --scenarios} names it or its group. */
    public static boolean optIn(PatternRow row) {
        return OPT_IN.contains(row);
    }
}
