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
 * @param scenarios   the scenarios to run, in table order
 * @param patterns    the pattern rows to run after them, in table order
 * @param fleet       how the fleet row runs
 */
public record LabSettings(int payments, int concurrency, int kills, long seed, String db, Path out, List<Scenario> scenarios,
                          List<PatternRow> patterns, FleetSettings fleet) {
    public LabSettings {
        Objects.requireNonNull(out, "out");
        Objects.requireNonNull(fleet, "fleet");
        scenarios = List.copyOf(scenarios);
        patterns = List.copyOf(patterns);
        if (payments < 1) {
            throw new IllegalArgumentException("payments per scenario must be at least 1, was " + payments);
        }
        if (concurrency < 1) {
            throw new IllegalArgumentException("concurrency must be at least 1, was " + concurrency);
        }
        if (kills < 1) {
            throw new IllegalArgumentException("kills must be at least 1, was " + kills);
        }
        if (scenarios.isEmpty() && patterns.isEmpty()) {
            throw new IllegalArgumentException("no scenario to run");
        }
    }

    /** The fleet row, if selected, with its default settings. */
    public LabSettings(int payments, int concurrency, int kills, long seed, String db, Path out, List<Scenario> scenarios,
                       List<PatternRow> patterns) {
        this(payments, concurrency, kills, seed, db, out, scenarios, patterns, FleetSettings.defaults());
    }

    /** A selection of scenarios and pattern rows, the fleet row with these settings. */
    public LabSettings(int payments, int concurrency, int kills, long seed, String db, Path out, Catalogue.Selection selection,
                       FleetSettings fleet) {
        this(payments, concurrency, kills, seed, db, out, selection.scenarios(), selection.patterns(), fleet);
    }

    /** Scenarios only, no pattern rows. */
    public LabSettings(int payments, int concurrency, int kills, long seed, String db, Path out, List<Scenario> scenarios) {
        this(payments, concurrency, kills, seed, db, out, scenarios, List.of());
    }

    /** A selection of scenarios and pattern rows. */
    public LabSettings(int payments, int concurrency, int kills, long seed, String db, Path out, Catalogue.Selection selection) {
        this(payments, concurrency, kills, seed, db, out, selection.scenarios(), selection.patterns());
    }

    Path workDir() {
        return out.resolve("work");
    }

    Path logDir() {
        return out.resolve("logs");
    }

    /** The database as shown in the report: SQLite, or the URL with its password masked. */
    String databaseLabel() {
        return db == null ? "SQLite files under " + workDir() : masked(db);
    }

    /** A JDBC URL with its password masked, for anything the lab prints. */
    static String masked(String jdbcUrl) {
        return jdbcUrl.replaceAll("password=[^&]*", "password=***");
    }
}
