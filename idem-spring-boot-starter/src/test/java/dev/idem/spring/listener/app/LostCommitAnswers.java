package dev.idem.spring.listener.app;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.jdbc.datasource.DelegatingDataSource;
import org.springframework.stereotype.Component;

/**
 * Wraps the application's {@link DataSource} so that a COMMIT can fail ambiguously, as when the
 * connection breaks after the database committed but before its answer arrived: after
 * {@link #loseNextAnswer()} the thread's next {@code commit()} commits, then throws a connection
 * error (SQLState 08006) to the caller.
 */
@Component
@ConditionalOnProperty("ledger.kafka.ambiguous-topic")
public class LostCommitAnswers implements BeanPostProcessor {
    /** Commits that reached the database and then failed for the caller. */
    public static final AtomicInteger LOST = new AtomicInteger();
    private static final ThreadLocal<Boolean> ARMED = ThreadLocal.withInitial(() -> false);

    /** The next COMMIT on this thread reaches the database, then fails for the caller. */
    public static void loseNextAnswer() {
        ARMED.set(true);
    }

    @Override
    public Object postProcessAfterInitialization(Object bean, String beanName) {
        if (!(bean instanceof DataSource dataSource)) {
            return bean;
        }
        return new DelegatingDataSource(dataSource) {
            @Override
            public Connection getConnection() throws SQLException {
                return losingAnswers(super.getConnection());
            }

            @Override
            public Connection getConnection(String username, String password) throws SQLException {
                return losingAnswers(super.getConnection(username, password));
            }
        };
    }

    private static Connection losingAnswers(Connection connection) {
        return (Connection) Proxy.newProxyInstance(LostCommitAnswers.class.getClassLoader(), new Class<?>[] {Connection.class},
                (proxy, method, args) -> {
                    Object result;
                    try {
                        result = method.invoke(connection, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                    if ("commit".equals(method.getName()) && ARMED.get()) {
                        ARMED.set(false);
                        LOST.incrementAndGet();
                        throw new SQLException("the connection broke after COMMIT was sent (test)", "08006");
                    }
                    return result;
                });
    }
}
