package dev.idem.webflux;

import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.logging.Logger;
import javax.sql.DataSource;

/**
 * The test database's pool, until {@link #down}: then every new connection goes to a port nothing
 * listens on, and fails as a database that is gone does (connection refused, from the real driver).
 */
final class SwitchableDataSource implements DataSource {
    private static final String NOWHERE = "jdbc:postgresql://127.0.0.1:1/test?user=postgres&connectTimeout=2";
    private final DataSource real;
    private volatile boolean down;

    SwitchableDataSource(DataSource real) {
        this.real = real;
    }

    void down(boolean down) {
        this.down = down;
    }

    @Override
    public Connection getConnection() throws SQLException {
        return down ? DriverManager.getConnection(NOWHERE) : real.getConnection();
    }

    @Override
    public Connection getConnection(String username, String password) throws SQLException {
        return down ? DriverManager.getConnection(NOWHERE) : real.getConnection(username, password);
    }

    @Override
    public PrintWriter getLogWriter() throws SQLException {
        return real.getLogWriter();
    }

    @Override
    public void setLogWriter(PrintWriter out) throws SQLException {
        real.setLogWriter(out);
    }

    @Override
    public void setLoginTimeout(int seconds) throws SQLException {
        real.setLoginTimeout(seconds);
    }

    @Override
    public int getLoginTimeout() throws SQLException {
        return real.getLoginTimeout();
    }

    @Override
    public Logger getParentLogger() throws SQLFeatureNotSupportedException {
        return real.getParentLogger();
    }

    @Override
    public <T> T unwrap(Class<T> iface) throws SQLException {
        return real.unwrap(iface);
    }

    @Override
    public boolean isWrapperFor(Class<?> iface) throws SQLException {
        return real.isWrapperFor(iface);
    }
}
