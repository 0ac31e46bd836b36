package dev.idem.demo.lab;

import com.zaxxer.hikari.HikariDataSource;
import dev.idem.upserts.WindowedTotals;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import javax.sql.DataSource;

/**
 * Revenue per minute and currency over five minutes of charges, computed by a job that runs twice
 * over the same input, as a job does when it is retried after a crash that came after its write. The
 * naive sink appends each run's totals (its readers add up the rows); idem's {@link WindowedTotals}
 * overwrites the range's totals with what it computed. Counted: windows and currencies whose total
 * in the sink differs from the input's.
 */
final class WindowRow {
    static final PatternRow ROW = new PatternRow("window-rerun", Group.WINDOW, "the job runs twice over the same input",
            List.of(Side.naive("append sink (INSERT … SELECT … GROUP BY)"), Side.idempotent("WindowedTotals: overwrite the range")),
            "minute x currency totals", "totals that differ from the input's", PatternRow.Needs.DATABASE, WindowRow::run);

    static final Instant FROM = Instant.parse("2025-01-01T09:00:00Z");
    static final Duration MINUTE = Duration.ofMinutes(1);
    static final Instant TO = FROM.plus(MINUTE.multipliedBy(5));
    private static final List<String> CURRENCIES = List.of("EUR", "USD", "GBP");
    private static final String EVENTS = "lab_charge_event";
    private static final String APPEND = "lab_revenue_per_minute_append";
    private static final int RUNS = 2;

    private WindowRow() {
    }

    /** The totals of one minute and currency. */
    record Total(long count, long sum) {
    }

    static PatternResult run(PatternRow row, RowContext context) throws SQLException {
        long started = System.nanoTime();
        List<WindowedTotals.Event> events = events(context.items(), new Random(context.seed()));
        Map<String, Total> truth = totals(events);
        try (HikariDataSource db = context.database(row.id(), "revenue", 2)) {
            Sql.recreate(db, EVENTS, "event_id text PRIMARY KEY, at_ms bigint NOT NULL, currency text NOT NULL, cents bigint NOT NULL");
            Sql.recreate(db, APPEND, "window_start bigint NOT NULL, currency text NOT NULL, charges bigint NOT NULL, cents bigint NOT NULL");
            store(db, events);
            SideResult naive = appendSide(row.sides().get(0), db, truth);
            SideResult idem = overwriteSide(row.sides().get(1), db, truth, "lab-revenue-per-minute-" + context.runTag());
            return new PatternResult(row, List.of(naive, idem), events.size() + " charges in " + truth.size()
                    + " minute x currency cells; each side's job ran " + RUNS + " times", (System.nanoTime() - started) / 1_000_000, null);
        }
    }

    static List<WindowedTotals.Event> events(int count, Random random) {
        List<WindowedTotals.Event> events = new ArrayList<>();
        long span = Duration.between(FROM, TO).toMillis();
        for (int i = 0; i < count; i++) {
            events.add(new WindowedTotals.Event(String.format("charge-%03d", i + 1), FROM.plusMillis((long) (random.nextDouble() * span)),
                    CURRENCIES.get(random.nextInt(CURRENCIES.size())), 100 + random.nextInt(99_900)));
        }
        return events;
    }

    /** The totals the input itself has, per "window start ms/currency": what a correct sink holds. */
    static Map<String, Total> totals(List<WindowedTotals.Event> events) {
        Map<String, Total> totals = new TreeMap<>();
        for (WindowedTotals.Event e : events) {
            long window = e.time().toEpochMilli() - e.time().toEpochMilli() % MINUTE.toMillis();
            totals.merge(window + "/" + e.group(), new Total(1, e.amount()), (a, b) -> new Total(a.count() + b.count(), a.sum() + b.sum()));
        }
        return totals;
    }

    private static void store(DataSource db, List<WindowedTotals.Event> events) throws SQLException {
        try (Connection c = db.getConnection();
             PreparedStatement ps = c.prepareStatement("INSERT INTO " + EVENTS + " (event_id, at_ms, currency, cents) VALUES (?, ?, ?, ?)")) {
            for (WindowedTotals.Event e : events) {
                ps.setString(1, e.id());
                ps.setLong(2, e.time().toEpochMilli());
                ps.setString(3, e.group());
                ps.setLong(4, e.amount());
                ps.addBatch();
            }
            ps.executeBatch();
        }
    }

    /** The naive job: one INSERT … SELECT of this run's totals; its readers add up the rows of a window. */
    private static SideResult appendSide(Side side, DataSource db, Map<String, Total> truth) throws SQLException {
        long started = System.nanoTime();
        for (int run = 0; run < RUNS; run++) {
            Sql.run(db, "INSERT INTO " + APPEND + " (window_start, currency, charges, cents)"
                    + " SELECT at_ms - at_ms % 60000, currency, count(*), sum(cents) FROM " + EVENTS + " GROUP BY at_ms - at_ms % 60000, currency");
        }
        long millis = (System.nanoTime() - started) / 1_000_000;
        Map<String, Total> sink = new TreeMap<>();
        try (Connection c = db.getConnection(); Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT window_start, currency, sum(charges), sum(cents) FROM " + APPEND + " GROUP BY window_start, currency")) {
            while (rs.next()) {
                sink.put(rs.getLong(1) + "/" + rs.getString(2), new Total(rs.getLong(3), rs.getLong(4)));
            }
        }
        return compare(side, truth, sink, millis);
    }

    /** The idempotent job: the range's complete input, recomputed and written over the range's totals. */
    private static SideResult overwriteSide(Side side, DataSource db, Map<String, Total> truth, String aggregate) throws SQLException {
        WindowedTotals perMinute = WindowedTotals.builder(db).name(aggregate).window(MINUTE).build();
        perMinute.migrate();
        long started = System.nanoTime();
        for (int run = 0; run < RUNS; run++) {
            perMinute.recompute(FROM, TO, read(db));
        }
        long millis = (System.nanoTime() - started) / 1_000_000;
        Map<String, Total> sink = new TreeMap<>();
        for (WindowedTotals.WindowTotal t : perMinute.totals(FROM, TO)) {
            sink.put(t.windowStart().toEpochMilli() + "/" + t.group(), new Total(t.count(), t.sum()));
        }
        return compare(side, truth, sink, millis);
    }

    private static List<WindowedTotals.Event> read(DataSource db) throws SQLException {
        List<WindowedTotals.Event> events = new ArrayList<>();
        try (Connection c = db.getConnection(); Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT event_id, at_ms, currency, cents FROM " + EVENTS)) {
            while (rs.next()) {
                events.add(new WindowedTotals.Event(rs.getString(1), Instant.ofEpochMilli(rs.getLong(2)), rs.getString(3), rs.getLong(4)));
            }
        }
        return events;
    }

    private static SideResult compare(Side side, Map<String, Total> truth, Map<String, Total> sink, long millis) {
        Set<String> cells = new HashSet<>(truth.keySet());
        cells.addAll(sink.keySet());
        int wrong = (int) cells.stream().filter(cell -> !Objects.equals(truth.get(cell), sink.get(cell))).count();
        long sum = sink.values().stream().mapToLong(Total::sum).sum();
        long input = truth.values().stream().mapToLong(Total::sum).sum();
        return new SideResult(side, truth.size(), "total " + Sql.money(sum) + " (input " + Sql.money(input) + ")", wrong, millis);
    }
}
