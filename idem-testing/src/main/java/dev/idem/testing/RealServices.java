package dev.idem.testing;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Arrays;
import java.util.Locale;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Assumptions;

/**
 * Finds the real servers tests run against (the services docs/testing.md lists) and hands out isolated databases on them.
 *
 * <ul>
 * <li>PostgreSQL: {@code IDEM_PG_URL} (a JDBC URL), else 127.0.0.1:5432 (user postgres, database test)
 *     if it answers, else an embedded PostgreSQL (which refuses to run as root).</li>
 * <li>SQLite: a file in a fresh temporary folder.</li>
 * <li>Redis: {@code IDEM_REDIS_URL} (a {@code redis://} URI), else 127.0.0.1:6379 if it answers.</li>
 * <li>MariaDB: {@code IDEM_MYSQL_URL} (a JDBC URL), else 127.0.0.1:3306 (user root, database test)
 *     if it answers; there is no embedded fallback.</li>
 * <li>RabbitMQ: {@code IDEM_RABBITMQ_URI} (an {@code amqp://} URI), else 127.0.0.1:5672 as guest/guest if it answers.</li>
 * <li>NATS: {@code IDEM_NATS_URL}, else nats://127.0.0.1:4222 if it answers.</li>
 * </ul>
 *
 * A service that cannot be found skips the test with a message naming it, unless
 * {@code IDEM_REQUIRE_SERVICES} is {@code all} or lists it (comma-separated), in which case the test
 * fails: CI sets {@code all} so that a missing server can never pass as green.
 */
public final class RealServices {
    private static final String DEFAULT_PG_URL = "jdbc:postgresql://127.0.0.1:5432/test?user=postgres";
    private static final String DEFAULT_REDIS_URI = "redis://127.0.0.1:6379";
    private static final String DEFAULT_MYSQL_URL = "jdbc:mariadb://127.0.0.1:3306/test?user=root";
    private static final String DEFAULT_RABBITMQ_URI = "amqp://guest:guest@127.0.0.1:5672";
    private static final String DEFAULT_NATS_URL = "nats://127.0.0.1:4222";
    private static volatile String postgresUrl;
    private static volatile String redisUri;
    private static volatile String mariadbUrl;
    private static Object embedded;

    private RealServices() {
    }

    /** A fresh PostgreSQL schema, dropped on {@link TestDatabase#close()}. */
    public static TestDatabase postgres() {
        return postgres(null);
    }

    /**
     * A fresh PostgreSQL schema whose sessions start at {@code defaultIsolation} (for example
     * {@code "repeatable read"}), as they would on a server or database configured with that
     * {@code default_transaction_isolation}; {@code null} for the server's own default.
     */
    public static TestDatabase postgres(String defaultIsolation) {
        return defaultIsolation == null ? postgresWithSessionSettings() : postgresWithSessionSettings("default_transaction_isolation=" + defaultIsolation);
    }

    /**
     * A fresh PostgreSQL schema whose sessions start with {@code settings} ({@code name=value}, e.g.
     * {@code "synchronous_commit=off"}), as they would on a database or role configured with them
     * ({@code ALTER DATABASE … SET}), without changing anything for other sessions of the server.
     */
    public static TestDatabase postgresWithSessionSettings(String... settings) {
        String url = postgresUrl();
        String schema = "idem_test_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
        try (HikariDataSource admin = pool(url, 1); Connection c = admin.getConnection(); Statement st = c.createStatement()) {
            st.execute("CREATE SCHEMA " + schema);
        } catch (SQLException e) {
            throw new IllegalStateException("PostgreSQL at " + redact(url) + " refused to create a test schema", e);
        }
        String schemaUrl = url + (url.contains("?") ? "&" : "?") + "currentSchema=" + schema;
        if (settings.length > 0) {
            // A startup option: the session's settings before the pool ever sees it; a backslash keeps
            // "repeatable read" one option value.
            StringBuilder options = new StringBuilder();
            for (String setting : settings) {
                options.append(options.isEmpty() ? "" : " ").append("-c ").append(setting.replace(" ", "\\ "));
            }
            schemaUrl += "&options=" + URLEncoder.encode(options.toString(), StandardCharsets.UTF_8);
        }
        HikariDataSource pool = pool(schemaUrl, 40);
        return new TestDatabase("PostgreSQL", pool, () -> {
            pool.close();
            try (HikariDataSource admin = pool(url, 1); Connection c = admin.getConnection(); Statement st = c.createStatement()) {
                st.execute("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
            } catch (SQLException e) {
                throw new IllegalStateException("could not drop test schema " + schema, e);
            }
        });
    }

    /** A new SQLite file in WAL mode with synchronous=FULL, deleted with its folder on close. */
    public static TestDatabase sqlite() {
        try {
            Path dir = Files.createTempDirectory("idem-sqlite-");
            Path file = dir.resolve("idem.db");
            String url = "jdbc:sqlite:" + file + "?journal_mode=WAL&synchronous=FULL&busy_timeout=30000&transaction_mode=IMMEDIATE";
            HikariDataSource pool = pool(url, 16);
            return new TestDatabase("SQLite", pool, () -> {
                pool.close();
                deleteTree(dir);
            });
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create a temporary folder for SQLite", e);
        }
    }

    /**
     * A fresh MariaDB database (utf8mb4), dropped on {@link TestDatabase#close()}: every test class
     * gets its own, so runs and classes never see each other's tables.
     */
    public static TestDatabase mariadb() {
        return mariadb(null);
    }

    /**
     * A fresh MariaDB database whose sessions start at {@code defaultIsolation} (for example
     * {@code "SERIALIZABLE"} or {@code "READ-COMMITTED"}), as on a server configured with that
     * {@code transaction_isolation}; {@code null} for the server's own default (REPEATABLE READ).
     */
    public static TestDatabase mariadb(String defaultIsolation) {
        String url = mariadbUrl();
        String database = "idem_test_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
        try (HikariDataSource admin = pool(url, 1); Connection c = admin.getConnection(); Statement st = c.createStatement()) {
            st.execute("CREATE DATABASE " + database + " CHARACTER SET utf8mb4");
        } catch (SQLException e) {
            throw new IllegalStateException("MariaDB at " + redact(url) + " refused to create a test database", e);
        }
        String databaseUrl = withDatabase(url, database);
        if (defaultIsolation != null) {
            // Connector/J runs these at connect, before the pool reads the connection's defaults.
            databaseUrl += (databaseUrl.contains("?") ? "&" : "?") + "sessionVariables=tx_isolation='" + defaultIsolation + "'";
        }
        HikariDataSource pool = pool(databaseUrl, 40);
        return new TestDatabase("MariaDB", pool, () -> {
            pool.close();
            try (HikariDataSource admin = pool(url, 1); Connection c = admin.getConnection(); Statement st = c.createStatement()) {
                st.execute("DROP DATABASE IF EXISTS " + database);
            } catch (SQLException e) {
                throw new IllegalStateException("could not drop test database " + database, e);
            }
        });
    }

    /**
     * The JDBC URL of the MariaDB server tests use: {@code IDEM_MYSQL_URL}, else 127.0.0.1:3306 as
     * root if it answers; else the calling test is skipped (or fails, see {@link #unavailable}).
     */
    public static synchronized String mariadbUrl() {
        if (mariadbUrl != null) {
            return mariadbUrl;
        }
        String configured = System.getenv("IDEM_MYSQL_URL");
        if (configured != null && !configured.isBlank()) {
            mariadbUrl = configured;
        } else if (answers("127.0.0.1", 3306)) {
            mariadbUrl = DEFAULT_MYSQL_URL;
        } else {
            unavailable("mariadb", "no MariaDB at IDEM_MYSQL_URL or 127.0.0.1:3306");
        }
        return mariadbUrl;
    }

    /** {@code url} with its database (the path after host:port) replaced by {@code database}. */
    static String withDatabase(String url, String database) {
        int hosts = url.indexOf("//");
        int slash = url.indexOf('/', hosts < 0 ? 0 : hosts + 2);
        int query = url.indexOf('?');
        if (hosts < 0 || slash < 0 && query < 0) {
            return url + "/" + database;
        }
        if (slash < 0 || query >= 0 && query < slash) {
            return url.substring(0, query) + "/" + database + url.substring(query);
        }
        return url.substring(0, slash + 1) + database + (query < 0 ? "" : url.substring(query));
    }

    /** The JDBC URL of the PostgreSQL server tests use; resolves it on first call. */
    public static synchronized String postgresUrl() {
        if (postgresUrl != null) {
            return postgresUrl;
        }
        String configured = System.getenv("IDEM_PG_URL");
        if (configured != null && !configured.isBlank()) {
            postgresUrl = configured;
        } else if (answers("127.0.0.1", 5432)) {
            postgresUrl = DEFAULT_PG_URL;
        } else {
            postgresUrl = startEmbeddedPostgres();
        }
        return postgresUrl;
    }

    /**
     * The {@code redis://} URI of the Redis server tests use; resolves it on first call. A string, so
     * that this module needs no Redis client.
     */
    public static synchronized String redisUri() {
        if (redisUri != null) {
            return redisUri;
        }
        String configured = System.getenv("IDEM_REDIS_URL");
        if (configured != null && !configured.isBlank()) {
            redisUri = configured;
        } else if (answers("127.0.0.1", 6379)) {
            redisUri = DEFAULT_REDIS_URI;
        } else {
            unavailable("redis", "no Redis at IDEM_REDIS_URL or 127.0.0.1:6379");
        }
        return redisUri;
    }

    /**
     * The {@code amqp://} URI of the RabbitMQ broker tests use: {@code IDEM_RABBITMQ_URI}, else
     * 127.0.0.1:5672 as guest/guest if it answers; else the calling test is skipped (or fails, see
     * {@link #unavailable}). A string, so that this module needs no RabbitMQ client.
     */
    public static String rabbitmqUri() {
        return configuredOrLocal("IDEM_RABBITMQ_URI", DEFAULT_RABBITMQ_URI, 5672, "rabbitmq");
    }

    /**
     * The URL of the NATS server tests use: {@code IDEM_NATS_URL}, else nats://127.0.0.1:4222 if it
     * answers; else the calling test is skipped (or fails, see {@link #unavailable}).
     */
    public static String natsUrl() {
        return configuredOrLocal("IDEM_NATS_URL", DEFAULT_NATS_URL, 4222, "nats");
    }

    private static String configuredOrLocal(String variable, String local, int port, String service) {
        String configured = System.getenv(variable);
        if (configured != null && !configured.isBlank()) {
            return configured;
        }
        if (!answers("127.0.0.1", port)) {
            unavailable(service, "nothing answers at 127.0.0.1:" + port + " (set " + variable + " to use another server)");
        }
        return local;
    }

    private static String startEmbeddedPostgres() {
        if ("root".equals(System.getProperty("user.name"))) {
            unavailable("postgres", "no PostgreSQL at IDEM_PG_URL or 127.0.0.1:5432, and embedded PostgreSQL's initdb refuses to run as root");
        }
        try {
            Class<?> type = Class.forName("io.zonky.test.db.postgres.embedded.EmbeddedPostgres");
            // Its defaults turn synchronous_commit off, which the JDBC stores' durability check refuses.
            Object builder = type.getMethod("builder").invoke(null);
            builder.getClass().getMethod("setServerConfig", String.class, String.class)
                    .invoke(builder, "synchronous_commit", "on");
            embedded = builder.getClass().getMethod("start").invoke(builder);
            int port = (Integer) type.getMethod("getPort").invoke(embedded);
            return "jdbc:postgresql://127.0.0.1:" + port + "/postgres?user=postgres";
        } catch (ReflectiveOperationException | LinkageError e) {
            unavailable("postgres", "no PostgreSQL at IDEM_PG_URL or 127.0.0.1:5432, and embedded PostgreSQL failed to start: " + e);
            throw new AssertionError("unreachable");
        }
    }

    /**
     * Skips the calling test with a message naming the service, or fails it when the service is
     * required ({@code IDEM_REQUIRE_SERVICES}).
     */
    public static void unavailable(String service, String why) {
        String message = service + " is not available: " + why;
        if (required(service)) {
            throw new IllegalStateException(message + " (IDEM_REQUIRE_SERVICES=" + System.getenv("IDEM_REQUIRE_SERVICES") + " makes this a failure)");
        }
        Assumptions.abort(message + " (set IDEM_REQUIRE_SERVICES=all to make this a failure)");
    }

    static boolean required(String service) {
        String value = System.getenv("IDEM_REQUIRE_SERVICES");
        if (value == null || value.isBlank()) {
            return false;
        }
        Set<String> names = Arrays.stream(value.split(",")).map(s -> s.trim().toLowerCase(Locale.ROOT)).collect(Collectors.toSet());
        return names.contains("all") || names.contains(service.toLowerCase(Locale.ROOT));
    }

    /** True if something accepts TCP connections at host:port within half a second. */
    public static boolean answers(String host, int port) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(host, port), 500);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    private static HikariDataSource pool(String url, int size) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(url);
        config.setMaximumPoolSize(size);
        config.setMinimumIdle(0);
        config.setConnectionTimeout(30_000);
        config.setPoolName("idem-test");
        return new HikariDataSource(config);
    }

    private static String redact(String url) {
        return url.replaceAll("password=[^&]*", "password=***");
    }

    private static void deleteTree(Path dir) {
        try (var paths = Files.walk(dir)) {
            paths.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            // A temporary folder left behind is harmless.
        }
    }
}
