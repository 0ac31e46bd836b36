package dev.idem.demo.lab;

import java.util.List;

/**
 * The rows of the lesson's other patterns and claims, in table order (by {@link Group}): each a naive
 * side and an idempotent side under one fault, counted from their sinks.
 */
public final class Patterns {
    private static final List<PatternRow> ALL = List.of(RedisRow.ROW, LockRow.ROW, UpsertRow.ROW, StateRow.ROW, WindowRow.ROW,
            KafkaRows.INSIDE, KafkaRows.BOUNDARY, FleetRow.ROW);

    private Patterns() {
    }

    public static List<PatternRow> all() {
        return ALL;
    }
}
