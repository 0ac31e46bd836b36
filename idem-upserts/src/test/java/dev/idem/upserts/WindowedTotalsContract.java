package dev.idem.upserts;

import dev.idem.testing.Concurrently;
import static java.util.stream.Collectors.collectingAndThen;
import static java.util.stream.Collectors.groupingBy;
import static java.util.stream.Collectors.summingLong;
import static java.util.stream.Collectors.toList;
import static java.util.stream.Collectors.toMap;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.jdbc.testing.Backends;
import dev.idem.testing.TestDatabase;
import dev.idem.upserts.WindowedTotals.Event;
import dev.idem.upserts.WindowedTotals.Recomputation;
import dev.idem.upserts.WindowedTotals.WindowTotal;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The {@link WindowedTotals} contract on a real database; one tiny subclass per backend. The input
 * is "charges": seeded random events over one hour, grouped by currency, totalled per minute. Every
 * expected total comes from an independent computation here (streams, minutes by truncation), never
 * from the code under test.
 */
abstract class WindowedTotalsContract {
    static final Instant T0 = Instant.parse("2025-03-01T10:00:00Z");
    static final List<String> CURRENCIES = List.of("EUR", "USD", "RON", "GBP");
    static final int MINUTES = 60;
    static final int EVENTS = 5_000;

    protected TestDatabase db;
    protected WindowedTotals perMinute;

    protected abstract Backends backend();

    @BeforeEach
    void openDatabase() {
        db = backend().open();
        perMinute = totals(b -> b.name("charges_per_minute"));
        perMinute.migrate();
    }

    @AfterEach
    void closeDatabase() {
        db.close();
    }

    // ---- helpers -----------------------------------------------------------------------------------

    private WindowedTotals totals(UnaryOperator<WindowedTotals.Builder> settings) {
        return settings.apply(WindowedTotals.builder(db.dataSource()).window(Duration.ofMinutes(1))).build();
    }

    static Instant minute(int m) {
        return T0.plus(m, ChronoUnit.MINUTES);
    }

    /** {@code n} charges with ids {@code <prefix>-<i>} spread over {@code minutes} minutes from T0; about 5 % are refunds. */
    static List<Event> charges(long seed, String prefix, int n, int minutes) {
        Random random = new Random(seed);
        List<Event> events = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            Instant time = T0.plusMillis(random.nextInt(minutes * 60_000)).plusNanos(random.nextInt(1_000_000));
            long amount = 1 + random.nextInt(100_000);
            events.add(new Event(prefix + "-" + i, time, CURRENCIES.get(random.nextInt(CURRENCIES.size())),
                    random.nextInt(20) == 0 ? -amount : amount));
        }
        return events;
    }

    static List<Event> charges(long seed) {
        return charges(seed, "ch", EVENTS, MINUTES);
    }

    static List<Event> shuffled(Collection<Event> events, long seed) {
        List<Event> copy = new ArrayList<>(events);
        Collections.shuffle(copy, new Random(seed));
        return copy;
    }

    static List<Event> inMinutes(Collection<Event> events, int from, int to) {
        return events.stream().filter(e -> !e.time().isBefore(minute(from)) && e.time().isBefore(minute(to))).toList();
    }

    /** The independent computation: distinct ids, windows of {@code windowMinutes} by truncation, sorted by window then group. */
    static List<WindowTotal> expected(Collection<Event> events, int windowMinutes) {
        Collection<Event> distinct = events.stream().collect(toMap(Event::id, e -> e, (first, again) -> first)).values();
        Map<Instant, Map<String, List<Event>>> byWindow = distinct.stream().collect(groupingBy(e -> {
            Instant minute = e.time().truncatedTo(ChronoUnit.MINUTES);
            return minute.minus(minute.atZone(ZoneOffset.UTC).getMinute() % windowMinutes, ChronoUnit.MINUTES);
        }, TreeMap::new, groupingBy(Event::group, TreeMap::new, toList())));
        List<WindowTotal> out = new ArrayList<>();
        byWindow.forEach((window, groups) -> groups.forEach((group, list) ->
                out.add(new WindowTotal(window, group, list.size(), list.stream().collect(summingLong(Event::amount))))));
        return out;
    }

    static List<WindowTotal> expected(Collection<Event> events) {
        return expected(events, 1);
    }

    List<WindowTotal> hour() {
        return perMinute.totals(minute(0), minute(MINUTES));
    }

    /** Every totals row as the database returns it, updated_at included: "aggregate|window|group" to "count|sum|updated_at". */
    Map<String, String> rows() throws SQLException {
        return query("SELECT aggregate_name, window_start, group_key, event_count, amount_sum, updated_at FROM idem_window_total", 3);
    }

    /** Every per-aggregate row: name to "window_ms|runs|last_run_at". */
    Map<String, String> aggregates() throws SQLException {
        return query("SELECT aggregate_name, window_ms, runs, last_run_at FROM idem_window_total_aggregate", 1);
    }

    private Map<String, String> query(String select, int keyColumns) throws SQLException {
        Map<String, String> out = new TreeMap<>();
        try (Connection c = db.dataSource().getConnection(); Statement st = c.createStatement(); ResultSet rs = st.executeQuery(select)) {
            ResultSetMetaData meta = rs.getMetaData();
            while (rs.next()) {
                List<String> key = new ArrayList<>();
                List<String> value = new ArrayList<>();
                for (int i = 1; i <= meta.getColumnCount(); i++) {
                    (i <= keyColumns ? key : value).add(rs.getString(i));
                }
                out.put(String.join("|", key), String.join("|", value));
            }
        }
        return out;
    }

    static String key(String aggregate, int minute, String group) {
        return aggregate + "|" + minute(minute).toEpochMilli() + "|" + group;
    }

    static Map<String, String> without(Map<String, String> rows, String... keys) {
        Map<String, String> copy = new TreeMap<>(rows);
        for (String k : keys) {
            copy.remove(k);
        }
        return copy;
    }

    private static <T> List<T> concurrently(List<Callable<T>> tasks) throws Exception {
        return Concurrently.callAll(tasks);
    }

    // ---- the contract ------------------------------------------------------------------------------

    @Test
    @DisplayName("re-run: the same input again gives equal totals, writes nothing (0 inserted/updated/deleted, every row unchanged) and matches an independent computation")
    void rerunIsHarmless() throws Exception {
        List<Event> events = charges(42);

        Recomputation first = perMinute.recompute(minute(0), minute(MINUTES), events);
        List<WindowTotal> afterFirst = hour();
        Map<String, String> rowsAfterFirst = rows();
        Recomputation second = perMinute.recompute(minute(0), minute(MINUTES), events);
        List<WindowTotal> afterSecond = hour();

        assertThat(afterFirst).isEqualTo(expected(events)).hasSize(MINUTES * CURRENCIES.size());
        assertThat(afterSecond).isEqualTo(afterFirst);
        assertThat(rows()).as("not even updated_at moved: nothing was written").isEqualTo(rowsAfterFirst);
        assertThat(first).extracting(Recomputation::windows, Recomputation::events, Recomputation::duplicates, Recomputation::inserted,
                Recomputation::updated, Recomputation::deleted, Recomputation::unchanged)
                .containsExactly((long) MINUTES, (long) EVENTS, 0L, (long) afterFirst.size(), 0L, 0L, 0L);
        assertThat(second).extracting(Recomputation::inserted, Recomputation::updated, Recomputation::deleted, Recomputation::unchanged)
                .containsExactly(0L, 0L, 0L, (long) afterFirst.size());
        assertThat(second.changed()).isFalse();
        assertThat(second.from()).isEqualTo(minute(0));
        assertThat(second.to()).isEqualTo(minute(MINUTES));
    }

    @Test
    @DisplayName("order independence: the input shuffled three ways gives the same totals, and no run changes a row")
    void orderIndependence() {
        List<Event> events = charges(7);
        perMinute.recompute(minute(0), minute(MINUTES), events);
        List<WindowTotal> inOrder = hour();

        for (long seed = 1; seed <= 3; seed++) {
            Recomputation run = perMinute.recompute(minute(0), minute(MINUTES), shuffled(events, seed));
            assertThat(run.changed()).as("shuffle %d", seed).isFalse();
            assertThat(hour()).as("shuffle %d", seed).isEqualTo(inOrder);
        }
        WindowedTotals reversed = totals(b -> b.name("charges_reversed"));
        List<Event> backwards = new ArrayList<>(events);
        Collections.reverse(backwards);
        reversed.recompute(minute(0), minute(MINUTES), backwards);
        assertThat(reversed.totals(minute(0), minute(MINUTES))).as("a fresh aggregate from the reversed input").isEqualTo(inOrder);
    }

    @Test
    @DisplayName("redelivery: 10 % of the events delivered again (same ids) give the totals of the unique input")
    void redeliveriesCountOnce() {
        List<Event> unique = charges(11);
        Random random = new Random(12);
        List<Event> redelivered = new ArrayList<>(unique);
        for (int i = 0; i < EVENTS / 10; i++) {
            Event e = unique.get(random.nextInt(unique.size()));
            redelivered.add(new Event(e.id(), e.time(), e.group(), e.amount()));   // an equal copy, as a broker would redeliver it
        }
        redelivered = shuffled(redelivered, 13);
        WindowedTotals fromUnique = totals(b -> b.name("charges_unique"));

        fromUnique.recompute(minute(0), minute(MINUTES), unique);
        Recomputation run = perMinute.recompute(minute(0), minute(MINUTES), redelivered);

        assertThat(hour()).isEqualTo(fromUnique.totals(minute(0), minute(MINUTES))).isEqualTo(expected(unique));
        assertThat(run.events()).isEqualTo(EVENTS);
        assertThat(run.duplicates()).isEqualTo(EVENTS / 10);
    }

    @Test
    @DisplayName("late event: recomputing only minute 17 with it changes that window's rows, and every other row stays byte for byte")
    void lateEvent() throws Exception {
        List<Event> events = charges(17);
        perMinute.recompute(minute(0), minute(MINUTES), events);
        Map<String, String> before = rows();
        long eurBefore = hour().stream().filter(t -> t.windowStart().equals(minute(17)) && t.group().equals("EUR")).findFirst().orElseThrow().sum();
        List<Event> late = List.of(new Event("late-eur", minute(17).plusSeconds(42), "EUR", 777),
                new Event("late-chf", minute(17).plusSeconds(59), "CHF", 5));
        List<Event> minute17 = new ArrayList<>(inMinutes(events, 17, 18));
        minute17.addAll(late);

        Recomputation run = perMinute.recompute(minute(17), minute(18), minute17);

        List<Event> all = new ArrayList<>(events);
        all.addAll(late);
        assertThat(hour()).isEqualTo(expected(all));
        assertThat(run).extracting(Recomputation::windows, Recomputation::inserted, Recomputation::updated, Recomputation::deleted,
                Recomputation::unchanged).containsExactly(1L, 1L, 1L, 0L, (long) CURRENCIES.size() - 1);
        assertThat(hour()).filteredOn(t -> t.windowStart().equals(minute(17)) && t.group().equals("EUR"))
                .singleElement().extracting(WindowTotal::sum).isEqualTo(eurBefore + 777);
        String eur = key("charges_per_minute", 17, "EUR");
        String chf = key("charges_per_minute", 17, "CHF");
        Map<String, String> after = rows();
        assertThat(without(after, eur, chf)).isEqualTo(without(before, eur));
        assertThat(after.get(eur)).isNotEqualTo(before.get(eur));
        assertThat(after).containsKey(chf);
    }

    @Test
    @DisplayName("corrected input: a group gone from a window has its row deleted; rows outside the range stay byte for byte")
    void correctedInputDeletesVanishedRows() throws Exception {
        List<Event> events = charges(23);
        perMinute.recompute(minute(0), minute(MINUTES), events);
        Map<String, String> before = rows();
        List<Event> corrected = inMinutes(events, 10, 20).stream()
                .filter(e -> !(e.group().equals("GBP") && !e.time().isBefore(minute(12)) && e.time().isBefore(minute(13))))
                .toList();

        Recomputation run = perMinute.recompute(minute(10), minute(20), corrected);

        String gone = key("charges_per_minute", 12, "GBP");
        assertThat(rows()).doesNotContainKey(gone).isEqualTo(without(before, gone));
        assertThat(run).extracting(Recomputation::inserted, Recomputation::updated, Recomputation::deleted, Recomputation::unchanged)
                .containsExactly(0L, 0L, 1L, 10L * CURRENCIES.size() - 1);
        List<Event> expectedInput = new ArrayList<>(inMinutes(events, 0, 10));
        expectedInput.addAll(corrected);
        expectedInput.addAll(inMinutes(events, 20, MINUTES));
        assertThat(hour()).isEqualTo(expected(expectedInput));
    }

    @Test
    @DisplayName("a source that fails mid-input: its exception propagates and the sink is unchanged")
    void failureMidInput() throws Exception {
        perMinute.recompute(minute(0), minute(MINUTES), charges(31));
        Map<String, String> rows = rows();
        Map<String, String> aggregates = aggregates();
        List<Event> other = charges(32);
        IllegalStateException lost = new IllegalStateException("source lost its connection");
        Iterable<Event> failing = () -> new Iterator<>() {
            private int next;

            @Override
            public boolean hasNext() {
                return true;
            }

            @Override
            public Event next() {
                if (next == EVENTS / 2) {
                    throw lost;
                }
                return other.get(next++);
            }
        };

        assertThatThrownBy(() -> perMinute.recompute(minute(0), minute(MINUTES), failing)).isSameAs(lost);
        WindowedTotals fresh = totals(b -> b.name("charges_fresh"));
        assertThatThrownBy(() -> fresh.recompute(minute(0), minute(MINUTES), failing)).isSameAs(lost);

        assertThat(rows()).isEqualTo(rows);
        assertThat(aggregates()).as("not even the run counter moved").isEqualTo(aggregates);
    }

    @Test
    @DisplayName("bad input (unaligned or empty range, event outside it, one id with two contents, nulls, overflow, another window length) fails clearly and writes nothing")
    void badInput() throws Exception {
        List<Event> events = charges(41);
        perMinute.recompute(minute(0), minute(MINUTES), events);
        Map<String, String> rows = rows();
        Map<String, String> aggregates = aggregates();
        Instant from = minute(0);
        Instant to = minute(MINUTES);

        assertThatThrownBy(() -> perMinute.recompute(from.plusSeconds(30), to, events)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("from must be a window boundary").hasMessageContaining("starts at " + from);
        assertThatThrownBy(() -> perMinute.recompute(from, to.plusNanos(1), events)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("to must be a window boundary");
        assertThatThrownBy(() -> perMinute.recompute(from, from, List.of())).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("from must be before to");
        assertThatThrownBy(() -> perMinute.recompute(to, from, List.of())).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("from must be before to");
        assertThatThrownBy(() -> perMinute.recompute(minute(0), minute(10), events)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("at or after the end of the range [" + minute(0) + ", " + minute(10) + ")");
        assertThatThrownBy(() -> perMinute.recompute(minute(10), minute(20), List.of(new Event("early", minute(10).minusMillis(1), "EUR", 1))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("position 0 lies before the range");

        List<Event> contradicting = new ArrayList<>(events);
        contradicting.add(0, new Event("charge-4711", minute(3), "EUR", 123_456_789));
        contradicting.add(new Event("charge-4711", minute(3), "EUR", 987_654_321));
        assertThatThrownBy(() -> perMinute.recompute(from, to, contradicting)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("position " + (EVENTS + 1)).hasMessageContaining("another amount")
                .hasMessageNotContaining("4711").hasMessageNotContaining("123456789").hasMessageNotContaining("987654321");

        assertThatThrownBy(() -> new Event(null, from, "EUR", 1)).isInstanceOf(NullPointerException.class).hasMessageContaining("event id");
        assertThatThrownBy(() -> new Event("", from, "EUR", 1)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("event id");
        assertThatThrownBy(() -> new Event("id", null, "EUR", 1)).isInstanceOf(NullPointerException.class).hasMessageContaining("event time");
        assertThatThrownBy(() -> new Event("id", from, null, 1)).isInstanceOf(NullPointerException.class).hasMessageContaining("event group");
        List<Event> withNull = new ArrayList<>(events);
        withNull.add(100, null);
        assertThatThrownBy(() -> perMinute.recompute(from, to, withNull)).isInstanceOf(NullPointerException.class)
                .hasMessageContaining("position 100");
        assertThatThrownBy(() -> perMinute.recompute(from, to, null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> perMinute.recompute(null, to, events)).isInstanceOf(NullPointerException.class);

        List<Event> overflowing = new ArrayList<>(events);
        overflowing.add(new Event("big-1", minute(5), "EUR", Long.MAX_VALUE));
        overflowing.add(new Event("big-2", minute(5).plusSeconds(1), "EUR", Long.MAX_VALUE));
        assertThatThrownBy(() -> perMinute.recompute(from, to, overflowing)).isInstanceOf(ArithmeticException.class)
                .hasMessageContaining("window starting at " + minute(5)).hasMessageContaining("group 'EUR'");

        WindowedTotals twoMinutes = WindowedTotals.builder(db.dataSource()).name("charges_per_minute").window(Duration.ofMinutes(2)).build();
        assertThatThrownBy(() -> twoMinutes.recompute(from, to, events)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("windows of PT1M");

        assertThat(rows()).isEqualTo(rows);
        assertThat(aggregates()).isEqualTo(aggregates);
    }

    @Test
    @DisplayName("four threads recomputing one range with the same input: the totals of a single run, inserted by exactly one of them")
    void concurrentSameInput() throws Exception {
        List<Event> events = charges(51);
        List<Callable<Recomputation>> runs = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            List<Event> input = shuffled(events, i);
            runs.add(() -> perMinute.recompute(minute(0), minute(MINUTES), input));
        }

        List<Recomputation> results = concurrently(runs);

        List<WindowTotal> single = expected(events);
        assertThat(hour()).isEqualTo(single);
        assertThat(results).filteredOn(Recomputation::changed).singleElement()
                .extracting(Recomputation::inserted).isEqualTo((long) single.size());
        assertThat(results).filteredOn(r -> !r.changed()).hasSize(3).allSatisfy(r -> assertThat(r.unchanged()).isEqualTo(single.size()));
        assertThat(aggregates().get("charges_per_minute")).startsWith("60000|4|");
    }

    @Test
    @DisplayName("a recomputation waits while another of the same aggregate is uncommitted, then diffs against what that one committed")
    void recomputationsTakeTurns() throws Exception {
        List<Event> events = charges(52);
        ExecutorService other = Executors.newSingleThreadExecutor();
        try (Connection c = db.dataSource().getConnection()) {
            c.setAutoCommit(false);
            Recomputation first = perMinute.recompute(c, minute(0), minute(MINUTES), events);
            Future<Recomputation> second = other.submit(() -> perMinute.recompute(minute(0), minute(MINUTES), shuffled(events, 1)));
            Thread.sleep(500);
            assertThat(second.isDone()).as("the second run waits for the first one's lock").isFalse();
            c.commit();
            c.setAutoCommit(true);

            Recomputation after = second.get(60, TimeUnit.SECONDS);
            assertThat(first.inserted()).isEqualTo(MINUTES * CURRENCIES.size());
            assertThat(after.changed()).as("it read the rows the first run committed").isFalse();
            assertThat(after.unchanged()).isEqualTo(MINUTES * CURRENCIES.size());
        } finally {
            other.shutdownNow();
        }
        assertThat(hour()).isEqualTo(expected(events));
    }

    @Test
    @DisplayName("two threads recomputing one range with different inputs, while a reader polls: every state seen is one whole run's result, never a mix")
    void concurrentDifferentInputs() throws Exception {
        List<Event> start = charges(60);
        List<Event> a = charges(61);
        // B has no GBP at all, so B after A deletes rows and A after B inserts them.
        List<Event> b = charges(62).stream().filter(e -> !e.group().equals("GBP")).toList();
        List<WindowTotal> expectedA = expected(a);
        List<WindowTotal> expectedB = expected(b);
        Set<List<WindowTotal>> wholeStates = Set.of(expected(start), expectedA, expectedB);
        perMinute.recompute(minute(0), minute(MINUTES), start);
        AtomicBoolean writing = new AtomicBoolean(true);
        Set<List<WindowTotal>> seen = ConcurrentHashMap.newKeySet();
        ExecutorService reader = Executors.newSingleThreadExecutor();
        Future<?> reading = reader.submit(() -> {
            while (writing.get()) {
                seen.add(hour());
            }
        });
        try {
            for (int round = 0; round < 5; round++) {
                concurrently(List.of(
                        () -> perMinute.recompute(minute(0), minute(MINUTES), a),
                        () -> perMinute.recompute(minute(0), minute(MINUTES), b)));
                List<WindowTotal> last = hour();
                assertThat(last).as("round %d", round).isIn(expectedA, expectedB);
            }
        } finally {
            writing.set(false);
            reading.get(60, TimeUnit.SECONDS);
            reader.shutdownNow();
        }
        assertThat(seen).isNotEmpty().allSatisfy(state -> assertThat(wholeStates).contains(state));
    }

    @Test
    @DisplayName("two aggregates in one table (per minute and per 5 minutes) never touch each other's rows")
    void aggregatesAreIndependent() throws Exception {
        WindowedTotals perFive = totals(b -> b.name("charges_per_5_minutes").window(Duration.ofMinutes(5)));
        List<Event> events = charges(71);
        perMinute.recompute(minute(0), minute(MINUTES), events);
        perFive.recompute(minute(0), minute(MINUTES), events);
        Map<String, String> fiveRows = new TreeMap<>(rows());
        fiveRows.keySet().removeIf(k -> !k.startsWith("charges_per_5_minutes|"));

        // per minute: minutes 0-30 recomputed without any event, so all their rows go
        Recomputation run = perMinute.recompute(minute(0), minute(30), List.of());

        assertThat(run.deleted()).isEqualTo(30L * CURRENCIES.size());
        assertThat(hour()).isEqualTo(expected(inMinutes(events, 30, MINUTES)));
        assertThat(perFive.totals(minute(0), minute(MINUTES))).isEqualTo(expected(events, 5)).hasSize(12 * CURRENCIES.size());
        Map<String, String> fiveRowsAfter = new TreeMap<>(rows());
        fiveRowsAfter.keySet().removeIf(k -> !k.startsWith("charges_per_5_minutes|"));
        assertThat(fiveRowsAfter).isEqualTo(fiveRows);
        assertThat(aggregates()).containsOnlyKeys("charges_per_minute", "charges_per_5_minutes");
    }

    @Test
    @DisplayName("recompute(connection, ...) writes in the caller's transaction: invisible until its commit, gone with its rollback; auto-commit refused")
    void inTheCallersTransaction() throws Exception {
        List<Event> events = charges(81);
        try (Connection c = db.dataSource().getConnection()) {
            c.setAutoCommit(false);
            Recomputation rolledBack = perMinute.recompute(c, minute(0), minute(MINUTES), events);
            c.rollback();
            assertThat(rolledBack.inserted()).isEqualTo(MINUTES * CURRENCIES.size());
            assertThat(hour()).isEmpty();

            perMinute.recompute(c, minute(0), minute(MINUTES), events);
            c.commit();
            c.setAutoCommit(true);
            assertThatThrownBy(() -> perMinute.recompute(c, minute(0), minute(MINUTES), events))
                    .isInstanceOf(IllegalStateException.class).hasMessageContaining("auto-commit");
        }
        assertThat(hour()).isEqualTo(expected(events));
        assertThat(aggregates().get("charges_per_minute")).as("only the committed run counts").startsWith("60000|1|");
    }
}
