package dev.idem.bench;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.net.URI;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The benchmark's own PostgreSQL database, {@code idem_bench_<pid>}, created from the admin URL and
 * dropped at {@link #close()}; also what pgbench needs to reach it.
 */
final class Postgres implements AutoCloseable {
    final String adminUrl;
    final String database;
    final String url;
    final String host;
    final int port;
    final String user;
    final String password;

    Postgres(String adminUrl) throws SQLException {
        this.adminUrl = adminUrl;
        if (!adminUrl.startsWith("jdbc:postgresql://")) {
            throw new IllegalArgumentException("--pg-url must be a jdbc:postgresql:// URL");
        }
        URI uri = URI.create(adminUrl.substring("jdbc:".length()));
        Map<String, String> query = new LinkedHashMap<>();
        if (uri.getRawQuery() != null) {
            for (String pair : uri.getRawQuery().split("&")) {
                int eq = pair.indexOf('=');
                if (eq > 0) {
                    query.put(pair.substring(0, eq), pair.substring(eq + 1));
                }
            }
        }
        this.host = uri.getHost() == null ? "127.0.0.1" : uri.getHost();
        this.port = uri.getPort() < 0 ? 5432 : uri.getPort();
        this.user = query.getOrDefault("user", "postgres");
        this.password = query.get("password");
        this.database = "idem_bench_" + ProcessHandle.current().pid();
        StringBuilder u = new StringBuilder("jdbc:postgresql://").append(host).append(':').append(port).append('/').append(database)
                .append("?user=").append(user);
        if (password != null) {
            u.append("&password=").append(password);
        }
        this.url = u.toString();
        try (Connection c = DriverManager.getConnection(adminUrl); Statement st = c.createStatement()) {
            st.execute("DROP DATABASE IF EXISTS " + database);
            st.execute("CREATE DATABASE " + database);
        }
    }

    HikariDataSource pool(int size) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(url);
        config.setMaximumPoolSize(size);
        config.setMinimumIdle(size);
        config.setPoolName("bench-pg");
        return new HikariDataSource(config);
    }

    void execute(String... statements) throws SQLException {
        try (Connection c = DriverManager.getConnection(url); Statement st = c.createStatement()) {
            for (String s : statements) {
                st.execute(s);
            }
        }
    }

    String serverVersion() {
        try (Connection c = DriverManager.getConnection(url); Statement st = c.createStatement();
             var rs = st.executeQuery("SHOW server_version")) {
            return rs.next() ? rs.getString(1) : "?";
        } catch (SQLException e) {
            return "?";
        }
    }

    String setting(String name) {
        try (Connection c = DriverManager.getConnection(url); Statement st = c.createStatement();
             var rs = st.executeQuery("SHOW " + name)) {
            return rs.next() ? rs.getString(1) : "?";
        } catch (SQLException e) {
            return "?";
        }
    }

    @Override
    public void close() throws SQLException {
        try (Connection c = DriverManager.getConnection(adminUrl); Statement st = c.createStatement()) {
            st.execute("DROP DATABASE IF EXISTS " + database + " WITH (FORCE)");
        }
    }
}
