package dev.idem.demo.lab;

import com.zaxxer.hikari.HikariDataSource;
import dev.idem.jdbc.Dialect;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.BrokenBarrierException;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import javax.sql.DataSource;

/**
 * The lock that makes "do it once" safe when several workers get the same order at once, on
 * PostgreSQL (SQLite has one writer and no row locks). Each attempt is a transaction that decides
 * whether the order still needs its effect, and if so makes it (a row in the effects table, after a
 * short downstream call) and marks the order done. Checking without a lock lets racers all see
 * "pending"; a pessimistic row lock ({@code SELECT … FOR UPDATE}) makes them take turns on the
 * order's row; an INSERT into a unique key lets the first claim win and fails the others on the
 * duplicate. Both locks hold; the row shows what each costs. Counted: effect rows per order.
 */
final class LockRow {
    static final int RACERS = 4;
    static final int CONNECTIONS = 8;
    /** The downstream call each effect waits for, inside the attempt's transaction. */
    static final long EFFECT_MILLIS = 2;

    static final PatternRow ROW = new PatternRow("lock-cost", Group.LOCK, RACERS + " workers race for each order at once",
            List.of(Side.naive("check, then act (no lock)"), Side.idempotent("row lock: SELECT … FOR UPDATE"),
                    Side.idempotent("INSERT into a unique key, duplicate fails")),
            "orders", "orders without exactly one effect", PatternRow.Needs.POSTGRESQL, LockRow::run);

    private static final String ORDERS = "lab_lock_order";
    private static final String CLAIMS = "lab_lock_claim";
    private static final String EFFECTS = "lab_lock_effect";
    private static final String UNIQUE_VIOLATION = "23505";

    private LockRow() {
    }

    /** One attempt at an order, in a transaction of its own on {@code c}. */
    @FunctionalInterface
    private interface Attempt {
        void run(Connection c, String order, String side) throws SQLException;
    }

    static PatternResult run(PatternRow row, RowContext context) throws Exception {
        StringBuilder why = new StringBuilder();
        Optional<String> postgres = context.postgres(why);
        if (postgres.isEmpty()) {
            return PatternResult.skipped(row, "needs PostgreSQL for row locks: " + why);
        }
        long started = System.nanoTime();
        try (HikariDataSource db = RowContext.pool(postgres.get(), CONNECTIONS)) {
            Sql.recreate(db, ORDERS, "order_id text PRIMARY KEY, status text NOT NULL");
            Sql.recreate(db, CLAIMS, "order_id text PRIMARY KEY");
            Sql.recreate(db, EFFECTS, "effect_id " + Sql.identity(Dialect.POSTGRESQL) + ", side text NOT NULL, order_id text NOT NULL");
            List<String> orders = new ArrayList<>();
            for (int i = 1; i <= context.items(); i++) {
                orders.add(String.format("order-%03d", i));
            }
            List<SideResult> sides = List.of(
                    side(row.sides().get(0), "check-then-act", db, orders, (c, order, side) -> checkThenAct(c, order, side, "")),
                    side(row.sides().get(1), "for-update", db, orders, (c, order, side) -> checkThenAct(c, order, side, " FOR UPDATE")),
                    side(row.sides().get(2), "unique-insert", db, orders, LockRow::claimThenAct));
            return new PatternResult(row, sides, RACERS + " racers per order start together on " + CONNECTIONS
                    + " connections; each attempt is a transaction holding a " + EFFECT_MILLIS + " ms downstream call; PostgreSQL at "
                    + LabSettings.masked(postgres.get()), (System.nanoTime() - started) / 1_000_000, null);
        }
    }

    private static SideResult side(Side side, String name, DataSource db, List<String> orders, Attempt attempt) throws Exception {
        Sql.run(db, "DELETE FROM " + ORDERS, "DELETE FROM " + CLAIMS);
        try (Connection c = db.getConnection(); PreparedStatement ps = c.prepareStatement("INSERT INTO " + ORDERS + " VALUES (?, 'pending')")) {
            for (String order : orders) {
                ps.setString(1, order);
                ps.addBatch();
            }
            ps.executeBatch();
        }
        long started = System.nanoTime();
        race(db, orders, name, attempt);
        long nanos = System.nanoTime() - started;
        Map<String, Long> effects = Sql.longsBy(db, "SELECT order_id, count(*) FROM " + EFFECTS + " WHERE side = '" + name + "' GROUP BY order_id");
        long total = effects.values().stream().mapToLong(Long::longValue).sum();
        int wrong = (int) orders.stream().filter(o -> effects.getOrDefault(o, 0L) != 1).count();
        int attempts = orders.size() * RACERS;
        double perSecond = attempts / (nanos / 1e9);
        return new SideResult(side, orders.size(), String.format(Locale.ROOT, "%d effects; %d attempts, %.0f/s", total, attempts, perSecond),
                wrong, nanos / 1_000_000, perSecond);
    }

    /**
     * Every order's racers at once: tasks are queued order by order and a barrier per order lets its
     * racers start together ({@link #CONNECTIONS} is a multiple of {@link #RACERS}, so a group is never split).
     */
    private static void race(DataSource db, List<String> orders, String side, Attempt attempt) throws Exception {
        ExecutorService workers = Executors.newFixedThreadPool(CONNECTIONS);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (String order : orders) {
                CyclicBarrier together = new CyclicBarrier(RACERS);
                for (int r = 0; r < RACERS; r++) {
                    done.add(workers.submit(() -> {
                        try (Connection c = db.getConnection()) {
                            awaitQuietly(together);
                            c.setAutoCommit(false);
                            try {
                                attempt.run(c, order, side);
                                c.commit();
                            } catch (SQLException e) {
                                c.rollback();
                                if (!UNIQUE_VIOLATION.equals(e.getSQLState())) {
                                    throw e;
                                }
                            }
                        }
                        return null;
                    }));
                }
            }
            for (Future<?> future : done) {
                try {
                    future.get();
                } catch (ExecutionException e) {
                    throw new IllegalStateException("an attempt of the lock row failed: " + e.getCause().getMessage(), e.getCause());
                }
            }
        } finally {
            workers.shutdownNow();
        }
    }

    /** Reads the order's status ({@code lock}: nothing, or FOR UPDATE); if still pending, makes the effect and marks it done. */
    private static void checkThenAct(Connection c, String order, String side, String lock) throws SQLException {
        String status;
        try (PreparedStatement ps = c.prepareStatement("SELECT status FROM " + ORDERS + " WHERE order_id = ?" + lock)) {
            ps.setString(1, order);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                status = rs.getString(1);
            }
        }
        if (!"pending".equals(status)) {
            return;
        }
        effect(c, order, side);
        try (PreparedStatement ps = c.prepareStatement("UPDATE " + ORDERS + " SET status = 'done' WHERE order_id = ?")) {
            ps.setString(1, order);
            ps.executeUpdate();
        }
    }

    /** Claims the order with an INSERT into its unique key (a duplicate throws 23505), then makes the effect. */
    private static void claimThenAct(Connection c, String order, String side) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + CLAIMS + " (order_id) VALUES (?)")) {
            ps.setString(1, order);
            ps.executeUpdate();
        }
        effect(c, order, side);
    }

    private static void effect(Connection c, String order, String side) throws SQLException {
        ChildProcess.sleep(EFFECT_MILLIS);
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + EFFECTS + " (side, order_id) VALUES (?, ?)")) {
            ps.setString(1, side);
            ps.setString(2, order);
            ps.executeUpdate();
        }
    }

    private static void awaitQuietly(CyclicBarrier barrier) throws InterruptedException {
        try {
            barrier.await(10, TimeUnit.SECONDS);
        } catch (BrokenBarrierException | TimeoutException e) {
            // A racer late to the start still races; the barrier only lines them up.
        }
    }
}
