package dev.idem.demo.lab;

import java.util.List;

/**
 * A row of the lesson's other patterns: a naive side and an idempotent side doing the same work
 * under the same fault, each counted from its own sink.
 *
 * @param fault what goes wrong, the same for every side
 * @param items what one unit of work is, for the legend ("order lines", "invoices")
 * @param wrong when an item counts as wrong, for the legend
 * @param needs the servers the row needs beyond the lab's database
 */
public record PatternRow(String id, Group group, String fault, List<Side> sides, String items, String wrong, Needs needs,
                         Runner runner) {
    public PatternRow {
        sides = List.copyOf(sides);
    }

    /** What a row needs that the lab may not have. */
    public enum Needs {
        /** The lab's database only (SQLite files, or --db). */
        DATABASE,
        /** The lab's Kafka broker (started on first need) and database. */
        KAFKA,
        /** A redis-server binary the lab starts itself. */
        REDIS_SERVER,
        /** PostgreSQL: --db, else the local default; the row is skipped with one line when none answers. */
        POSTGRESQL,
        /** PostgreSQL's server binaries, to start a primary and a standby of the row's own; skipped with one line without them. */
        POSTGRESQL_SERVERS
    }

    /** Runs every side of the row. */
    @FunctionalInterface
    public interface Runner {
        PatternResult run(PatternRow row, RowContext context) throws Exception;
    }
}
