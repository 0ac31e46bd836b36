package dev.idem.demo.lab;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.idem.jdbc.Sqlite;
import dev.idem.testing.KafkaBroker;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.Optional;
import java.util.Properties;

/**
 * What a pattern row runs on: the lab's settings and seed, a work folder of its own, the lab's
 * database (a SQLite file of the row's own, or the PostgreSQL of {@code --db}), the lab's Kafka
 * broker, and the progress line.
 */
final class RowContext {
    /** Where the lock row looks for PostgreSQL when {@code --db} is not PostgreSQL. */
    static final String DEFAULT_POSTGRES = "jdbc:postgresql://127.0.0.1:5432/test?user=postgres";
    /** Long enough for a first connection on a loaded machine (driver loading, authentication). */
    private static final int PROBE_SECONDS = 10;

    private final LabSettings settings;
    private final Stack stack;
    private final Progress progress;
    private final String runTag;
    private final long seed;

    RowContext(LabSettings settings, Stack stack, Progress progress, String runTag, long seed) {
        this.settings = settings;
        this.stack = stack;
        this.progress = progress;
        this.runTag = runTag;
        this.seed = seed;
    }

    LabSettings settings() {
        return settings;
    }

    /** Seeds every random choice of the row. */
    long seed() {
        return seed;
    }

    /** Units of work per side: the lab's payments per scenario. */
    int items() {
        return settings.payments();
    }

    /** Tells this lab run's names apart from an earlier run's on a shared database or broker. */
    String runTag() {
        return runTag;
    }

    void event(String message) {
        progress.event(message);
    }

    Path workDir(String name) {
        Path dir = settings.workDir().resolve(name).toAbsolutePath();
        try {
            Files.createDirectories(dir);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create " + dir, e);
        }
        return dir;
    }

    Path log(String name) {
        return settings.logDir().resolve(name);
    }

    /** The JDBC URL of the row's database: {@code --db}, else a SQLite file {@code name} in the row's work folder. */
    String jdbcUrl(String rowId, String name) {
        return settings.db() != null ? settings.db() : Sqlite.url(workDir(rowId).resolve(name + ".db"));
    }

    /** A pool on {@link #jdbcUrl}; the caller closes it. */
    HikariDataSource database(String rowId, String name, int connections) {
        return pool(jdbcUrl(rowId, name), connections);
    }

    static HikariDataSource pool(String jdbcUrl, int connections) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(jdbcUrl);
        config.setPoolName("lab-row");
        config.setMaximumPoolSize(connections);
        config.setMinimumIdle(0);
        config.setConnectionTimeout(10_000);
        return new HikariDataSource(config);
    }

    /**
     * A PostgreSQL for a row that needs it: {@code --db} if it is one, else {@link #DEFAULT_POSTGRES}
     * if it answers within a few seconds.
     *
     * @return the URL, or empty with {@code why} describing what was tried
     */
    Optional<String> postgres(StringBuilder why) {
        String url = settings.db() != null && settings.db().startsWith("jdbc:postgresql:") ? settings.db() : DEFAULT_POSTGRES;
        Properties timeouts = new Properties();
        timeouts.setProperty("loginTimeout", Integer.toString(PROBE_SECONDS));
        timeouts.setProperty("connectTimeout", Integer.toString(PROBE_SECONDS));
        try (Connection c = DriverManager.getConnection(url, timeouts)) {
            return Optional.of(url);
        } catch (SQLException e) {
            why.append("no PostgreSQL answered at ").append(LabSettings.masked(url))
                    .append(settings.db() == null ? " (give one with --db jdbc:postgresql://...)" : "");
            return Optional.empty();
        }
    }

    /** The programs the lab starts. */
    Components components() {
        return stack.components();
    }

    /** The lab's broker, started on first need. */
    KafkaBroker kafka() {
        return stack.kafka();
    }

    /** The stream processor of the Kafka rows, from the lab's own class path. */
    JavaApp streamProcessor() {
        return JavaApp.mainClass("stream processor", JavaApp.SMALL_JVM, JavaApp.ownClassPath(), StreamProcessorMain.class.getName());
    }
}
