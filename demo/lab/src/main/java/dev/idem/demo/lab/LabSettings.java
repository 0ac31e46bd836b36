package dev.idem.demo.lab;

import java.nio.file.Path;
import java.util.List;
import java.util.Objects;

/**
 * How a lab run goes.
 *
 * @param payments    logical payments per scenario
 * @param concurrency payments in flight at once
 * @param kills       SIGKILLs per kill scenario
 * @param seed        seeds every fault decision (proxy, gateway) and the amounts
 * @param db          a JDBC URL for the gateway and the service, or null for SQLite files under {@code out}
 * @param out         where work folders, logs and the report go
 * @param scenarios   what to run, in table order
 */
public record LabSettings(int payments, int concurrency, int kills, long seed, String db, Path out, List<Scenario> scenarios) {
    public LabSettings {
        Objects.requireNonNull(out, "out");
        scenarios = List.copyOf(scenarios);
        if (payments < 1) {
            throw new IllegalArgumentException("payments per scenario must be at least 1, was " + payments);
        }
        if (concurrency < 1) {
            throw new IllegalArgumentException("concurrency must be at least 1, was " + concurrency);
        }
        if (kills < 1) {
            throw new IllegalArgumentException("kills must be at least 1, was " + kills);
        }
        if (scenarios.isEmpty()) {
            throw new IllegalArgumentException("no scenario to run");
        }
    }

    Path workDir() {
        return out.resolve("work");
    }

    Path logDir() {
        return out.resolve("logs");
    }

    /** The database as shown in the report: SQLite, or the URL with its password masked. */
    String databaseLabel() {
        return db == null ? "SQLite files under " + workDir() : db.replaceAll("password=[^&]*", "password=***");
    }
}
