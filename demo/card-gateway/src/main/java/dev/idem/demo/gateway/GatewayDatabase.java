package dev.idem.demo.gateway;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.idem.jdbc.Sqlite;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** The gateway's connection pool: a SQLite file in its data folder, or the database a JDBC URL names. */
final class GatewayDatabase {
    static final String SQLITE_FILE = "gateway.db";

    private GatewayDatabase() {
    }

    static HikariDataSource open(Path dataDir, String jdbcUrl) {
        HikariConfig config = new HikariConfig();
        config.setPoolName("card-gateway");
        config.setMinimumIdle(1);
        config.setMaximumPoolSize(8);
        config.setConnectionTimeout(10_000);
        config.setJdbcUrl(jdbcUrl != null ? jdbcUrl : Sqlite.url(sqliteFile(dataDir)));
        return new HikariDataSource(config);
    }

    static Path sqliteFile(Path dataDir) {
        try {
            Files.createDirectories(dataDir);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create the data folder " + dataDir, e);
        }
        return dataDir.resolve(SQLITE_FILE);
    }

    /** The URL with any password masked, for the start-up line. */
    static String describe(Path dataDir, String jdbcUrl) {
        return jdbcUrl == null ? "SQLite " + dataDir.resolve(SQLITE_FILE) : jdbcUrl.replaceAll("password=[^&]*", "password=***");
    }
}
