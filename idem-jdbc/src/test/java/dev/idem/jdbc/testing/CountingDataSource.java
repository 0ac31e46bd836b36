package dev.idem.jdbc.testing;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import javax.sql.DataSource;

/**
 * A real pool behind a counter of commits: each {@code commit()}, and each statement executed while
 * auto-commit is on (it commits by itself). It can also hold the next connection handed out until a
 * condition holds, so a test can line callers up behind a write in flight.
 */
public final class CountingDataSource extends DelegatingDataSource {
    private static final Set<String> EXECUTES = Set.of("execute", "executeQuery", "executeUpdate", "executeLargeUpdate", "executeBatch",
            "executeLargeBatch");

    private final AtomicLong commits = new AtomicLong();
    private final AtomicLong autoCommitSwitches = new AtomicLong();
    private final AtomicReference<Hold> hold = new AtomicReference<>();
    private final AtomicBoolean heldUntilReady = new AtomicBoolean();

    private record Hold(BooleanSupplier ready, CountDownLatch reached) {
    }

    public CountingDataSource(DataSource target) {
        super(target);
    }

    /** Commits since the last {@link #reset}. */
    public long commits() {
        return commits.get();
    }

    /** Calls of {@code setAutoCommit} that changed the connection's mode since the last {@link #reset} (a round trip each on some drivers). */
    public long autoCommitSwitches() {
        return autoCommitSwitches.get();
    }

    public void reset() {
        commits.set(0);
        autoCommitSwitches.set(0);
    }

    /**
     * The next connection handed out waits (up to 30 s) until {@code ready} holds; the latch opens when
     * that connection is asked for.
     */
    public CountDownLatch holdNextConnectionUntil(BooleanSupplier ready) {
        Hold h = new Hold(ready, new CountDownLatch(1));
        heldUntilReady.set(false);
        hold.set(h);
        return h.reached();
    }

    /** Whether the last held connection's condition came true (rather than the wait timing out). */
    public boolean heldUntilReady() {
        return heldUntilReady.get();
    }

    @Override
    protected Connection wrap(Connection real) throws SQLException {
        Hold h = hold.getAndSet(null);
        if (h != null) {
            h.reached().countDown();
            heldUntilReady.set(waitFor(h.ready()));
        }
        return (Connection) Proxy.newProxyInstance(Connection.class.getClassLoader(), new Class<?>[] {Connection.class},
                new Counted(real, real));
    }

    private static boolean waitFor(BooleanSupplier ready) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!ready.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                return false;
            }
            try {
                Thread.sleep(5);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }
        return true;
    }

    /** Forwards to a connection or one of its statements, counting commits, and wrapping statements it hands out. */
    private final class Counted implements InvocationHandler {
        private final Object target;
        private final Connection connection;

        Counted(Object target, Connection connection) {
            this.target = target;
            this.connection = connection;
        }

        @Override
        public Object invoke(Object proxy, Method method, Object[] args) throws Throwable {
            boolean autoCommit = target instanceof Statement && connection.getAutoCommit();
            if (target == connection && method.getName().equals("setAutoCommit") && connection.getAutoCommit() != (Boolean) args[0]) {
                autoCommitSwitches.incrementAndGet();
            }
            Object result;
            try {
                result = method.invoke(target, args);
            } catch (InvocationTargetException e) {
                throw e.getCause();
            }
            if (target == connection && method.getName().equals("commit")) {
                commits.incrementAndGet();
            } else if (autoCommit && EXECUTES.contains(method.getName())) {
                commits.incrementAndGet();
            }
            if (result instanceof Statement && method.getReturnType().isInterface()) {
                return Proxy.newProxyInstance(Connection.class.getClassLoader(), new Class<?>[] {method.getReturnType()},
                        new Counted(result, connection));
            }
            return result;
        }
    }
}
