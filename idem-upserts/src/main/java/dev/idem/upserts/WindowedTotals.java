package dev.idem.upserts;

import dev.idem.StoreException;
import dev.idem.jdbc.Dialect;
import dev.idem.jdbc.JdbcComponentBuilder;
import dev.idem.jdbc.support.Migrator;
import dev.idem.jdbc.support.SqlStatements;
import dev.idem.jdbc.support.StoreCalls;
import dev.idem.jdbc.support.Tables;
import dev.idem.jdbc.support.Transactions;
import dev.idem.upserts.WindowComputation.Cell;
import dev.idem.upserts.WindowComputation.Totals;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.SortedMap;
import java.util.TreeMap;
import javax.sql.DataSource;

/**
 * Windowed totals: a deterministic aggregate over tumbling time windows (charges per minute and
 * currency, say) written to a sink that each recomputation <b>overwrites</b>. That makes the stream
 * transformation idempotent: running it again over the same input leaves the same totals, so a
 * retried job, a replayed partition or two schedulers running the same job do no harm.
 *
 * <pre>{@code
 * WindowedTotals chargesPerMinute = WindowedTotals.builder(dataSource)
 *         .name("charges_per_minute").window(Duration.ofMinutes(1)).build();
 * chargesPerMinute.migrate();                                   // idem_window_total (or run V4__create_idem_window_total.sql)
 * List<WindowedTotals.Event> events = charges.stream()          // every charge of [from, to), redeliveries and all
 *         .map(ch -> new WindowedTotals.Event(ch.id(), ch.time(), ch.currency(), ch.cents())).toList();
 * WindowedTotals.Recomputation run = chargesPerMinute.recompute(from, to, events);   // again: nothing changes
 * List<WindowedTotals.WindowTotal> totals = chargesPerMinute.totals(from, to);
 * }</pre>
 *
 * <h2>Why re-running is harmless</h2>
 * The transformation is deterministic: a window's totals depend only on the <em>set</em> of distinct
 * events in it, not on their order, not on when it runs, and not on how often an at-least-once
 * source delivered each one, because events are told apart by id and a repeated id counts once.
 * The sink is overwritten, never incremented: a recomputation replaces the totals of its range
 * with what it computed. Same input, same totals, however often it runs.
 *
 * <h2>The contract of {@link #recompute}</h2>
 * <ul>
 * <li>Windows are tumbling and aligned to the Unix epoch: with one-minute windows each starts at a
 *     whole minute (UTC). A range {@code [from, to)} starts and ends on window boundaries.</li>
 * <li>The input is the <b>complete</b> input of the range. A window or group of the range that the
 *     input does not reach loses its row: recomputing with part of the input writes smaller totals.
 *     An event outside the range is refused, not skipped: it belongs to another recomputation.</li>
 * <li>Events with the same id are one event. If they differ (time, group or amount) the input
 *     contradicts itself and is refused; choosing one would make the result depend on order.</li>
 * <li>Counts and sums are exact; a sum that does not fit in a long is an {@link ArithmeticException}
 *     whatever the order of its amounts.</li>
 * <li><b>Late events:</b> an event that arrives after its window was computed is taken in by
 *     recomputing its window (or any aligned range around it) from that window's complete input,
 *     which now includes it. Only the rows that changed are written; every other row stays as it was.</li>
 * <li>On any error nothing is written: the input is read and checked to its end before the database
 *     is touched, and the sink is written in one transaction.</li>
 * </ul>
 *
 * <h2>Writing and reading</h2>
 * A recomputation is one transaction: it first locks its aggregate's row in
 * {@code idem_window_total_aggregate} (an upsert that counts the run), so recomputations of one
 * aggregate take turns; then it reads the range's rows and writes only the differences: new and
 * changed totals ({@code INSERT … ON CONFLICT … DO UPDATE}), and deletes for windows and groups that
 * are gone. Rows outside the range are never touched. Readers see the totals before or after a
 * recomputation, never half of one. Aggregates are told apart by {@linkplain Builder#name name}; an
 * aggregate keeps the window length it was first computed with.
 *
 * <p>The range's distinct events are held in memory while it is recomputed (to tell redeliveries
 * apart): recompute in ranges whose input fits. Thread-safe; each call borrows a connection from the
 * {@link DataSource} (pool it). On PostgreSQL use READ COMMITTED (the default): under REPEATABLE
 * READ a recomputation that waited for another fails with a serialization error instead. On MariaDB
 * either level works: a recomputation reads its range with a locking read, which sees the newest rows.
 */
public final class WindowedTotals {
    /** The longest window: fixed-length windows do not follow the calendar; build months and years from daily totals. */
    static final Duration MAX_WINDOW = Duration.ofDays(366);

    /** Each call's transaction, a driver failure as a redacted StoreException naming the aggregate. */
    private final StoreCalls calls;
    private final Dialect dialect;
    private final String name;
    private final Duration window;
    private final long windowMs;
    private final Map<String, String> tableNames;
    private final SqlStatements sql;

    private WindowedTotals(Builder b, Dialect dialect) {
        this.dialect = dialect;
        this.name = b.name;
        this.window = b.window;
        this.windowMs = b.window.toMillis();
        this.tableNames = Map.of(Tables.DEFAULT_WINDOW_TOTAL_TABLE, b.tableName());
        this.sql = SqlStatements.load(dialect, b.sqlSource, "window_totals.sql", tableNames, requiredStatements(dialect));
        this.calls = new StoreCalls(new Transactions(b.dataSource()), dialect.displayName() + " windowed totals '" + name + "'");
    }

    /** Every statement the totals run on {@code dialect}; checked when they are built. */
    static List<String> requiredStatements(Dialect dialect) {
        List<String> names = new ArrayList<>(List.of("window_lock_aggregate", "window_range", "window_upsert", "window_delete"));
        if (readsSnapshotUnderLock(dialect)) {
            names.add("window_range_locked");
        }
        names.addAll(Migrator.requiredStatements(dialect));
        return names;
    }

    /**
     * Whether a plain read in a transaction may see a snapshot older than the lock it took (InnoDB's
     * consistent reads under REPEATABLE READ), so that the read after the aggregate's lock must be a
     * locking read ({@code window_range_locked}).
     */
    static boolean readsSnapshotUnderLock(Dialect dialect) {
        return switch (dialect) {
            case MARIADB -> true;
            case POSTGRESQL, SQLITE -> false;
        };
    }

    /** Windowed totals on {@code dataSource}; the dialect is detected at {@link Builder#build()} unless set. */
    public static Builder builder(DataSource dataSource) {
        return new Builder(dataSource);
    }

    /**
     * Creates or upgrades the totals table and its per-aggregate table: the dialect's migrations of
     * this track not yet applied, under a lock, safe to run concurrently. A DBA may run the plain SQL
     * file instead.
     */
    public void migrate() {
        calls.migrate(new Migrator(dialect, sql, WindowedTotals.class, Tables.DEFAULT_WINDOW_TOTAL_TABLE, tableNames));
    }

    // ---- recomputing ----------------------------------------------------------------------------

    /**
     * Recomputes every window of {@code [from, to)} from {@code events}, the complete input of that
     * range, and overwrites the range's totals with the result in one transaction (see the class
     * comment for the contract).
     *
     * @param from   the first window's start, a window boundary
     * @param to     the end of the last window, a window boundary after {@code from}
     * @param events every event of the range, in any order, redeliveries included; read once, to its end
     * @return what the recomputation changed; a re-run on the same input reports only unchanged rows
     * @throws IllegalArgumentException if the range is not aligned or empty, an event lies outside it,
     *                                  or two events share an id but differ; nothing was written
     * @throws NullPointerException     for a null argument or event; nothing was written
     * @throws ArithmeticException      if a sum does not fit in a long; nothing was written
     * @throws IllegalStateException    if the aggregate was computed with another window length; nothing was written
     * @throws StoreException           if the database failed; nothing was written
     */
    public Recomputation recompute(Instant from, Instant to, Iterable<? extends Event> events) {
        Range range = range(from, to);
        WindowComputation.Result computed = WindowComputation.compute(name, from, to, windowMs, events);
        // One transaction; run again whole if the database picks it as a deadlock victim (the
        // computed result is kept, and the write is a comparison with what it finds).
        return calls.inTransaction("recompute [" + from + ", " + to + ")", c -> write(c, range, computed));
    }

    /**
     * {@link #recompute(Instant, Instant, Iterable)} in the caller's transaction: nothing is
     * committed here; the new totals become visible with the caller's commit and vanish with its
     * rollback. The aggregate's row stays locked until then. After an exception, roll back.
     *
     * @throws IllegalStateException if the connection is in auto-commit mode (the writes would commit one by one)
     * @throws SQLException          as the driver throws it; the caller owns the transaction
     */
    public Recomputation recompute(Connection connection, Instant from, Instant to, Iterable<? extends Event> events)
            throws SQLException {
        Objects.requireNonNull(connection, "connection is null");
        Range range = range(from, to);
        if (connection.getAutoCommit()) {
            throw new IllegalStateException("recompute(connection, ...) must run in the caller's transaction, "
                    + "but the connection is in auto-commit mode");
        }
        WindowComputation.Result computed = WindowComputation.compute(name, from, to, windowMs, events);
        try {
            return write(connection, range, computed);
        } catch (SQLException e) {
            throw Transactions.inCallersTransaction(e, "the windowed totals' recomputation");
        }
    }

    /**
     * The totals of the windows that start in {@code [from, to)} (any instants), ordered by window
     * start, then by group ({@link String#compareTo} order, the same on every database).
     */
    public List<WindowTotal> totals(Instant from, Instant to) {
        Objects.requireNonNull(from, "from is null");
        Objects.requireNonNull(to, "to is null");
        if (!from.isBefore(to)) {
            throw new IllegalArgumentException("from must be before to, was from=" + from + ", to=" + to);
        }
        long fromMs = ceilMillis("from", from);
        long toMs = ceilMillis("to", to);
        return calls.onConnection("read totals", c -> {
            List<WindowTotal> out = new ArrayList<>();
            for (Map.Entry<Cell, Totals> row : read(c, sql.get("window_range"), fromMs, toMs).entrySet()) {
                out.add(new WindowTotal(Instant.ofEpochMilli(row.getKey().windowStart()), row.getKey().group(),
                        row.getValue().count(), row.getValue().sum()));
            }
            return List.copyOf(out);
        });
    }

    // ---- settings -------------------------------------------------------------------------------

    /** The aggregate's name: its identity in the sink. */
    public String name() {
        return name;
    }

    public Duration window() {
        return window;
    }

    public Dialect dialect() {
        return dialect;
    }

    public String tableName() {
        return tableNames.get(Tables.DEFAULT_WINDOW_TOTAL_TABLE);
    }

    @Override
    public String toString() {
        return "WindowedTotals[" + dialect.displayName() + ", name=" + name + ", window=" + window + ", table=" + tableName() + "]";
    }

    // ---- on a connection in a transaction ---------------------------------------------------------

    private Recomputation write(Connection c, Range range, WindowComputation.Result computed) throws SQLException {
        long storedWindowMs;
        try (PreparedStatement ps = c.prepareStatement(sql.get("window_lock_aggregate"))) {
            ps.setString(1, name);
            ps.setLong(2, windowMs);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                storedWindowMs = rs.getLong(1);
            }
        }
        if (storedWindowMs != windowMs) {
            throw new IllegalStateException("aggregate '" + name + "' was computed with windows of " + Duration.ofMillis(storedWindowMs)
                    + ", not " + window + "; give an aggregate with another window length another name");
        }
        SortedMap<Cell, Totals> existing = read(c, sql.get(readsSnapshotUnderLock(dialect) ? "window_range_locked" : "window_range"), range.fromMs, range.toMs);
        long inserted = 0;
        long updated = 0;
        long unchanged = 0;
        try (PreparedStatement upsert = c.prepareStatement(sql.get("window_upsert"))) {
            for (Map.Entry<Cell, Totals> entry : computed.totals().entrySet()) {
                Totals before = existing.remove(entry.getKey());
                if (entry.getValue().equals(before)) {
                    unchanged++;
                    continue;
                }
                if (before == null) {
                    inserted++;
                } else {
                    updated++;
                }
                upsert.setString(1, name);
                upsert.setLong(2, entry.getKey().windowStart());
                upsert.setString(3, entry.getKey().group());
                upsert.setLong(4, entry.getValue().count());
                upsert.setLong(5, entry.getValue().sum());
                upsert.addBatch();
            }
            if (inserted + updated > 0) {
                upsert.executeBatch();
            }
        }
        // What is left of the range's rows has no events in the input any more.
        if (!existing.isEmpty()) {
            try (PreparedStatement delete = c.prepareStatement(sql.get("window_delete"))) {
                for (Cell gone : existing.keySet()) {
                    delete.setString(1, name);
                    delete.setLong(2, gone.windowStart());
                    delete.setString(3, gone.group());
                    delete.addBatch();
                }
                delete.executeBatch();
            }
        }
        return new Recomputation(Instant.ofEpochMilli(range.fromMs), Instant.ofEpochMilli(range.toMs), (range.toMs - range.fromMs) / windowMs,
                computed.events(), computed.duplicates(), inserted, updated, existing.size(), unchanged);
    }

    /** The rows of the windows starting in [fromMs, toMs), sorted here so the order never depends on a database collation. */
    private SortedMap<Cell, Totals> read(Connection c, String statement, long fromMs, long toMs) throws SQLException {
        TreeMap<Cell, Totals> rows = new TreeMap<>();
        try (PreparedStatement ps = c.prepareStatement(statement)) {
            ps.setString(1, name);
            ps.setLong(2, fromMs);
            ps.setLong(3, toMs);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    rows.put(new Cell(rs.getLong(1), rs.getString(2)), new Totals(rs.getLong(3), rs.getLong(4)));
                }
            }
        }
        return rows;
    }

    // ---- ranges and errors -------------------------------------------------------------------------

    private record Range(long fromMs, long toMs) {
    }

    private Range range(Instant from, Instant to) {
        Objects.requireNonNull(from, "from is null");
        Objects.requireNonNull(to, "to is null");
        if (!from.isBefore(to)) {
            throw new IllegalArgumentException("from must be before to, was from=" + from + ", to=" + to);
        }
        return new Range(boundary("from", from), boundary("to", to));
    }

    private long boundary(String what, Instant instant) {
        long ms = ceilMillis(what, instant);
        if (instant.getNano() % 1_000_000 != 0 || Math.floorMod(ms, windowMs) != 0) {
            long start = Math.floorDiv(instant.toEpochMilli(), windowMs) * windowMs;
            throw new IllegalArgumentException(what + " must be a window boundary (windows of " + window
                    + " from the Unix epoch), was " + instant + "; the window holding it starts at " + Instant.ofEpochMilli(start));
        }
        return ms;
    }

    /** The instant in epoch milliseconds, rounded up to the next whole millisecond. */
    private static long ceilMillis(String what, Instant instant) {
        try {
            return Math.addExact(instant.toEpochMilli(), instant.getNano() % 1_000_000 == 0 ? 0 : 1);
        } catch (ArithmeticException e) {
            throw new IllegalArgumentException(what + " is beyond the range of epoch milliseconds, was " + instant);
        }
    }

    // ---- values -------------------------------------------------------------------------------------

    /**
     * One input event: its id (the same for every delivery of it), when it happened, the group it is
     * totalled in (a currency, a merchant; use a constant for a single total) and its amount (any
     * long, negative for a refund).
     *
     * @param id    1–255 characters without control characters; error messages never quote it
     * @param group 1–255 characters without control characters
     */
    public record Event(String id, Instant time, String group, long amount) implements WindowComputation.Input {
        public Event {
            checkText("event id", id);
            Objects.requireNonNull(time, "event time is null");
            checkText("event group", group);
        }
    }

    /** The totals of one window and group: {@code count} distinct events whose amounts sum to {@code sum}. */
    public record WindowTotal(Instant windowStart, String group, long count, long sum) {
        public WindowTotal {
            Objects.requireNonNull(windowStart, "windowStart is null");
            Objects.requireNonNull(group, "group is null");
        }
    }

    /**
     * What one recomputation did.
     *
     * @param windows    windows in the range
     * @param events     distinct events (by id) in the input
     * @param duplicates repeated deliveries in the input, each counted once
     * @param inserted   rows written for a window and group that had none
     * @param updated    rows whose totals changed
     * @param deleted    rows of windows and groups without events in the input any more
     * @param unchanged  rows whose totals were already right, left unwritten
     */
    public record Recomputation(Instant from, Instant to, long windows, long events, long duplicates,
                                long inserted, long updated, long deleted, long unchanged) {
        /** Whether the sink changed: false for a re-run on the same input. */
        public boolean changed() {
            return inserted + updated + deleted > 0;
        }
    }

    // ---- validation -------------------------------------------------------------------------------

    private static void checkText(String what, String value) {
        Objects.requireNonNull(value, what + " is null");
        if (value.isEmpty() || value.length() > 255) {
            throw new IllegalArgumentException(what + " must have 1-255 characters, was " + value.length() + " characters");
        }
        for (int i = 0; i < value.length(); i++) {
            if (Character.isISOControl(value.charAt(i))) {
                throw new IllegalArgumentException(what + " has a control character at position " + i);
            }
        }
    }

    /** Settings of {@link WindowedTotals}; each setter validates its value. */
    public static final class Builder extends JdbcComponentBuilder<Builder> {
        private String name;
        private Duration window;
        private SqlStatements.Source sqlSource = SqlStatements.Source.of(WindowedTotals.class);

        /** The table defaults to {@code idem_window_total}; its per-aggregate table adds {@code _aggregate}. */
        private Builder(DataSource dataSource) {
            super(dataSource, null, Tables.DEFAULT_WINDOW_TOTAL_TABLE);
        }

        /**
         * Required: the aggregate's identity in the sink, e.g. {@code charges_per_minute}; 1–100
         * visible ASCII characters (no spaces). Aggregates with different names never touch each other's rows.
         */
        public Builder name(String name) {
            if (name == null || name.isEmpty() || name.length() > 100) {
                throw new IllegalArgumentException("name must have 1-100 characters, was "
                        + (name == null ? "null" : name.length() + " characters"));
            }
            for (int i = 0; i < name.length(); i++) {
                char ch = name.charAt(i);
                if (ch < 0x21 || ch > 0x7e) {
                    throw new IllegalArgumentException("name must be visible ASCII (no spaces), has another character at position " + i
                            + " in '" + name + "'");
                }
            }
            this.name = name;
            return this;
        }

        /**
         * Required: the length of the tumbling windows, aligned to the Unix epoch (one minute: each
         * window starts at a whole minute UTC). Whole milliseconds, from 1 ms to 366 days.
         */
        public Builder window(Duration window) {
            Objects.requireNonNull(window, "window is null");
            if (window.isNegative() || window.isZero() || window.compareTo(MAX_WINDOW) > 0) {
                throw new IllegalArgumentException("window must be from 1 ms to " + MAX_WINDOW + ", was " + window);
            }
            if (window.getNano() % 1_000_000 != 0) {
                throw new IllegalArgumentException("window must be whole milliseconds, was " + window);
            }
            this.window = window;
            return this;
        }

        /** Test seam: where the SQL is read from, e.g. the dialect's files with a statement left out. */
        Builder sqlSource(SqlStatements.Source sqlSource) {
            this.sqlSource = Objects.requireNonNull(sqlSource, "sqlSource is null");
            return this;
        }

        /**
         * Builds the windowed totals, detecting the dialect if none was set and, on SQLite, checking
         * the settings idem relies on.
         *
         * @throws IllegalStateException if the name or window is missing, or SQLite lacks WAL, synchronous=FULL or a busy timeout
         * @throws StoreException        if the database cannot be reached
         */
        public WindowedTotals build() {
            if (name == null) {
                throw new IllegalStateException("name is required: the aggregate's identity in the sink, e.g. \"charges_per_minute\"");
            }
            if (window == null) {
                throw new IllegalStateException("window is required: the length of the tumbling windows, e.g. Duration.ofMinutes(1)");
            }
            return new WindowedTotals(this, resolveDialect("JDBC windowed totals"));
        }
    }
}
