package dev.idem.jdbc.testing;

import java.io.PrintWriter;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.sql.Statement;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;
import java.util.logging.Logger;
import javax.sql.DataSource;

/**
 * A {@link DataSource} in front of a real PostgreSQL or MariaDB database that, when armed, makes the
 * database pick the transaction of an idem statement as a <b>real</b> deadlock victim, just before
 * that statement would run.
 *
 * <p>How: a second connection (the rival) locks scratch row 1 after writing ballast rows (so InnoDB,
 * which rolls back the lighter transaction, picks idem's); idem's connection locks scratch row 2 in
 * its own transaction; the rival asks for row 2 and waits; idem's connection asks for row 1, closing
 * the cycle. PostgreSQL's deadlock check runs in the waiter whose {@code deadlock_timeout} ends first
 * (idem's is set short, the rival's long); InnoDB's runs at once. Either way the server rolls idem's
 * transaction back and its connection gets the server's own error (40P01 or 40001/1213), which is what
 * the intercepted statement then throws. A statement in auto-commit mode is its own transaction, so
 * there the cycle is built in a transaction opened for it and auto-commit is switched back on after.
 */
public final class DeadlockInjector extends DelegatingDataSource {
    private final Backends backend;
    private final AtomicInteger remaining = new AtomicInteger();
    private final AtomicInteger injected = new AtomicInteger();
    /** The rival's blocking statement runs here: never on the common pool, which a busy test may have filled. */
    private final ExecutorService rivals = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "deadlock-rival");
        t.setDaemon(true);
        return t;
    });
    private volatile Predicate<String> trigger = sql -> false;

    public DeadlockInjector(DataSource target, Backends backend) throws SQLException {
        super(checked(target, backend));
        this.backend = backend;
        try (Connection c = target.getConnection(); Statement st = c.createStatement()) {
            st.execute("CREATE TABLE IF NOT EXISTS deadlock_scratch (id INT PRIMARY KEY, v INT NOT NULL)");
            st.execute("CREATE TABLE IF NOT EXISTS deadlock_ballast (id INT PRIMARY KEY)");
            st.execute("DELETE FROM deadlock_scratch");
            st.execute("INSERT INTO deadlock_scratch (id, v) VALUES (1, 0), (2, 0)");
        }
    }

    /** The next {@code times} statements whose SQL matches {@code sql} each lose a real deadlock first. */
    public DeadlockInjector arm(Predicate<String> sql, int times) {
        trigger = sql;
        remaining.set(times);
        return this;
    }

    /** Deadlocks forced so far. */
    public int injected() {
        return injected.get();
    }

    /** No further deadlocks. */
    public void disarm() {
        remaining.set(0);
    }

    private static DataSource checked(DataSource target, Backends backend) {
        if (backend != Backends.POSTGRESQL && backend != Backends.MARIADB) {
            throw new IllegalArgumentException("deadlocks are forced on PostgreSQL and MariaDB, not " + backend);
        }
        return target;
    }

    @Override
    protected Connection wrap(Connection real) {
        InvocationHandler handler = (proxy, method, args) -> {
            Object result = invoke(real, method, args);
            if (result instanceof Statement statement && (method.getName().equals("prepareStatement")
                    || method.getName().equals("createStatement") || method.getName().equals("prepareCall"))) {
                String sql = args != null && args.length > 0 && args[0] instanceof String s ? s : null;
                return wrap(real, statement, sql);
            }
            return result;
        };
        return (Connection) Proxy.newProxyInstance(Connection.class.getClassLoader(), new Class<?>[] {Connection.class}, handler);
    }

    private Statement wrap(Connection connection, Statement real, String preparedSql) {
        Class<?> type = real instanceof PreparedStatement ? PreparedStatement.class : Statement.class;
        InvocationHandler handler = (proxy, method, args) -> {
            if (method.getName().startsWith("execute")) {
                String sql = args != null && args.length > 0 && args[0] instanceof String s ? s : preparedSql;
                if (sql != null && trigger.test(sql) && remaining.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
                    throw loseDeadlock(connection);
                }
            }
            return invoke(real, method, args);
        };
        return (Statement) Proxy.newProxyInstance(Statement.class.getClassLoader(), new Class<?>[] {type}, handler);
    }

    private static Object invoke(Object target, Method method, Object[] args) throws Throwable {
        try {
            return method.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }

    /** Builds the lock cycle with {@code victim} as the loser; returns the server's error on the victim. */
    private SQLException loseDeadlock(Connection victim) throws SQLException {
        boolean autoCommit = victim.getAutoCommit();
        if (autoCommit) {
            victim.setAutoCommit(false);
        }
        try (Connection rival = target.getConnection(); Connection monitor = target.getConnection()) {
            rival.setAutoCommit(false);
            try (Statement st = rival.createStatement()) {
                if (backend == Backends.POSTGRESQL) {
                    st.execute("SET LOCAL deadlock_timeout = '60s'");
                } else {
                    // Heavier than the victim: InnoDB rolls back the transaction that changed fewer rows.
                    st.execute("INSERT INTO deadlock_ballast (id) SELECT seq FROM seq_1_to_500");
                }
                st.executeUpdate("UPDATE deadlock_scratch SET v = v + 1 WHERE id = 1");
            }
            long rivalId = sessionId(rival);
            try (Statement st = victim.createStatement()) {
                if (backend == Backends.POSTGRESQL) {
                    st.execute("SET LOCAL deadlock_timeout = '50ms'");
                }
                st.executeUpdate("UPDATE deadlock_scratch SET v = v + 1 WHERE id = 2");
            }
            CompletableFuture<Void> rivalWaits = CompletableFuture.runAsync(() -> {
                try (Statement st = rival.createStatement()) {
                    st.executeUpdate("UPDATE deadlock_scratch SET v = v + 1 WHERE id = 2");
                } catch (SQLException e) {
                    throw new IllegalStateException("the rival lost the deadlock instead of idem's transaction", e);
                }
            }, rivals);
            if (backend == Backends.POSTGRESQL) {
                // PostgreSQL checks for a cycle once per wait, when the waiter's deadlock_timeout ends:
                // the rival must already wait when idem's short timeout runs out. InnoDB checks when the
                // cycle closes, whichever request closes it, and picks the lighter transaction.
                awaitLockWait(monitor, rivalId);
            }
            SQLException lost = null;
            try (Statement st = victim.createStatement()) {
                st.executeUpdate("UPDATE deadlock_scratch SET v = v + 1 WHERE id = 1");
            } catch (SQLException e) {
                lost = e;
            }
            if (lost == null) {
                throw new IllegalStateException("no deadlock: idem's transaction got both scratch rows");
            }
            victim.rollback();
            rivalWaits.get(30, TimeUnit.SECONDS);
            rival.rollback();
            injected.incrementAndGet();
            return lost;
        } catch (Exception e) {
            throw new IllegalStateException("could not force a deadlock: " + e, e);
        } finally {
            if (autoCommit) {
                victim.setAutoCommit(true);
            }
        }
    }

    private long sessionId(Connection c) throws SQLException {
        String query = backend == Backends.POSTGRESQL ? "SELECT pg_backend_pid()" : "SELECT CONNECTION_ID()";
        try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery(query)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private void awaitLockWait(Connection monitor, long sessionId) throws SQLException, InterruptedException {
        String query = "SELECT count(*) FROM pg_locks WHERE NOT granted AND pid = ?";
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (System.nanoTime() < deadline) {
            try (PreparedStatement ps = monitor.prepareStatement(query)) {
                ps.setLong(1, sessionId);
                try (ResultSet rs = ps.executeQuery()) {
                    if (rs.next() && rs.getLong(1) > 0) {
                        return;
                    }
                }
            }
            Thread.sleep(5);
        }
        throw new IllegalStateException("the rival never waited for idem's scratch row");
    }
}
