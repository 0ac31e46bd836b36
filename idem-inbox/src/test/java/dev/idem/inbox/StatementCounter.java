package dev.idem.inbox;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.Statement;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;

/**
 * A {@link DataSource} that passes everything to a real one and records each statement execution
 * its connections run, so a test can assert how many statements an operation costs.
 * A JDBC batch counts once per row added: drivers such as pgjdbc send it as one execution per row.
 */
final class StatementCounter {
    private static final Set<String> EXECUTIONS = Set.of("execute", "executeQuery", "executeUpdate", "executeLargeUpdate");

    private final DataSource dataSource;
    private final List<String> executed = new CopyOnWriteArrayList<>();

    StatementCounter(DataSource real) {
        this.dataSource = proxy(DataSource.class, real, (target, method, args) -> {
            Object result = invoke(target, method, args);
            return result instanceof Connection c ? connection(c) : result;
        });
    }

    DataSource dataSource() {
        return dataSource;
    }

    /** The SQL of every execution since the last {@link #reset}, in order (a JDBC batch's text once per row). */
    List<String> executed() {
        return List.copyOf(executed);
    }

    void reset() {
        executed.clear();
    }

    private Connection connection(Connection real) {
        return proxy(Connection.class, real, (target, method, args) -> {
            Object result = invoke(target, method, args);
            if (result instanceof Statement s && method.getName().startsWith("prepare")) {
                return statement(s, (String) args[0]);
            }
            if (result instanceof Statement s) {
                return statement(s, null);
            }
            return result;
        });
    }

    private Statement statement(Statement real, String preparedSql) {
        Class<? extends Statement> type = real instanceof java.sql.PreparedStatement ? java.sql.PreparedStatement.class : Statement.class;
        AtomicInteger batched = new AtomicInteger();
        return proxy(type, real, (target, method, args) -> {
            String name = method.getName();
            String sql = args != null && args.length > 0 && args[0] instanceof String text ? text : preparedSql;
            if (EXECUTIONS.contains(name)) {
                executed.add(sql);
            } else if (name.equals("addBatch")) {
                batched.incrementAndGet();
            } else if (name.equals("executeBatch") || name.equals("executeLargeBatch")) {
                for (int i = batched.getAndSet(0); i > 0; i--) {
                    executed.add(sql);
                }
            }
            return invoke(target, method, args);
        });
    }

    @SuppressWarnings("unchecked")
    private static <T> T proxy(Class<T> type, Object real, InvocationHandler handler) {
        return (T) Proxy.newProxyInstance(StatementCounter.class.getClassLoader(), new Class<?>[] {type},
                (p, method, args) -> handler.invoke(real, method, args));
    }

    private static Object invoke(Object target, Method method, Object[] args) throws Throwable {
        try {
            return method.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }
}
