package dev.idem.kafka;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;

/** A real DataSource whose connections lose the next commits: rolled back, then an SQLException as a broken connection gives. */
final class FlakyDataSource {
    private FlakyDataSource() {
    }

    static DataSource failingCommits(DataSource real, AtomicInteger commitsToFail) {
        return (DataSource) Proxy.newProxyInstance(DataSource.class.getClassLoader(), new Class<?>[] {DataSource.class},
                (proxy, method, args) -> {
                    Object result = call(real, method, args);
                    return result instanceof Connection c ? connection(c, commitsToFail) : result;
                });
    }

    private static Connection connection(Connection real, AtomicInteger commitsToFail) {
        return (Connection) Proxy.newProxyInstance(Connection.class.getClassLoader(), new Class<?>[] {Connection.class},
                (proxy, method, args) -> {
                    if (method.getName().equals("commit") && commitsToFail.getAndDecrement() > 0) {
                        real.rollback();
                        throw new SQLException("simulated: the connection broke at commit", "08006");
                    }
                    return call(real, method, args);
                });
    }

    private static Object call(Object target, java.lang.reflect.Method method, Object[] args) throws Throwable {
        try {
            return method.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }
}
