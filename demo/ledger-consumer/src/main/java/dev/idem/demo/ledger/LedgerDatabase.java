package dev.idem.demo.ledger;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.idem.jdbc.Sqlite;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** The consumer's connection pool: {@code ledger.db} in its data folder, or the PostgreSQL database a JDBC URL names. */
final class LedgerDatabase {
    static final String SQLITE_FILE = "ledger.db";

    private LedgerDatabase() {
    }

    /** @param jdbcUrl a PostgreSQL or MariaDB URL, or null for SQLite under {@code dataDir} */
    static HikariDataSource open(Path dataDir, String jdbcUrl) {
        HikariConfig config = new HikariConfig();
        config.setPoolName("ledger-consumer");
        config.setMinimumIdle(1);
        // The consumer loop holds one connection at a time, HTTP readers the others.
        config.setMaximumPoolSize(4);
        config.setConnectionTimeout(10_000);
        config.setJdbcUrl(jdbcUrl != null ? jdbcUrl : Sqlite.url(sqliteFile(dataDir)));
        return new HikariDataSource(config);
    }

    private static Path sqliteFile(Path dataDir) {
        try {
            Files.createDirectories(dataDir);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create the data folder " + dataDir, e);
        }
        return dataDir.resolve(SQLITE_FILE);
    }

    /** For the start-up line: the SQLite file, or the URL with any password masked. */
    static String describe(Path dataDir, String jdbcUrl) {
        return jdbcUrl == null ? "SQLite " + dataDir.resolve(SQLITE_FILE) : jdbcUrl.replaceAll("password=[^&]*", "password=***");
    }
}
