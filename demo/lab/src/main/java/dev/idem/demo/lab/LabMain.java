package dev.idem.demo.lab;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code ./idem lab [options]} */
@Command(name = "idem lab", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Runs the card gateway, the payments service and a fault proxy as child processes, sends payments through",
                "faults with four client strategies, and counts lost and duplicated charges from the gateway's ledger.",
                "Two rows retry every payment after its response's retention (2 s there): charged again without tombstones, 410 with.",
                "The messaging scenarios add a Kafka broker (child JVM) and a ledger consumer of the service's payment events,",
                "killed between its database commit and its offset commit, and count duplicated ledger entries.",
                "Then the lesson's other patterns, each a naive and an idempotent side under one fault, counted from their sinks:",
                "natural-key upserts, state assignments, a re-run windowed aggregate, Kafka's exactly-once inside Kafka and at",
                "its boundary, a Redis store restarted without and with persistence, and a row lock against a unique INSERT.",
                "Last, a fleet: several service instances on one PostgreSQL behind a balancer under a nemesis (SIGKILL, SIGSTOP,",
                "killed and blackholed database connections, pool pressure, gateway latency), checked over its whole history,",
                "beside a deliberately broken control fleet the checker must flag (--fleet-payments, --fleet-instances, --fleet-coalesce, --long).",
                "Opt-in (--scenarios failover): the fleet on a PostgreSQL primary and standby of its own; the primary SIGKILLed, the",
                "standby promoted; asynchronous against synchronous replication.",
                "Exits 1 if a row does not show what it exists to show."})
public final class LabMain implements Callable<Integer> {
    @Option(names = {"-n", "--payments"}, description = "Logical payments per scenario (default: ${DEFAULT-VALUE}).", defaultValue = "40")
    int payments;

    @Option(names = "--seed", description = "Seed of every fault decision and amount (default: ${DEFAULT-VALUE}).", defaultValue = "42")
    long seed;

    @Option(names = "--db", description = "JDBC URL of a PostgreSQL database for the gateway and the service, e.g. "
            + "jdbc:postgresql://127.0.0.1:5432/test?user=postgres (default: SQLite files under --out).")
    String db;

    @Option(names = "--scenarios", split = ",", description = "Rows or groups of rows to run, comma-separated (default: all; see --list).")
    List<String> scenarios;

    @Option(names = "--out", description = "Folder for the report, logs and work files (default: ${DEFAULT-VALUE}).", defaultValue = "data/lab")
    Path out;

    @Option(names = "--concurrency", description = "Payments in flight at once (default: ${DEFAULT-VALUE}).", defaultValue = "4")
    int concurrency;

    @Option(names = "--kills", description = "Kills in each kill scenario and Kafka row (default: ${DEFAULT-VALUE}).", defaultValue = "2")
    int kills;

    @Option(names = "--fleet-payments", description = "Payments of the fleet row's correct fleet (default: 150; --long: 10000).")
    Integer fleetPayments;

    @Option(names = "--fleet-instances", description = "Payments-service instances of the fleet row (default: ${DEFAULT-VALUE}).",
            defaultValue = "3")
    int fleetInstances;

    @Option(names = "--fleet-coalesce", description = "Which fleet instances' stores coalesce commits: on, off, or mixed (instance 1 "
            + "forced on, the others PostgreSQL's default, off; default: ${DEFAULT-VALUE}).", defaultValue = "mixed")
    String fleetCoalesce;

    @Option(names = "--long", description = "The fleet row's long preset: 10,000 payments, 20 SIGKILLs, 20 pauses, 12 database faults.")
    boolean longFleet;

    @Option(names = "--list", description = "List the rows by pattern and exit.")
    boolean list;

    @Option(names = "--service-jar", description = "The payments service jar (default: ${DEFAULT-VALUE}).",
            defaultValue = "demo/payments-service/target/payments-service.jar")
    Path serviceJar;

    @Option(names = "--gateway-jar", description = "The card gateway jar (default: ${DEFAULT-VALUE}).", defaultValue = "demo/card-gateway/target/card-gateway.jar")
    Path gatewayJar;

    @Option(names = "--proxy-jar", description = "The fault proxy jar (default: ${DEFAULT-VALUE}).", defaultValue = "demo/fault-proxy/target/fault-proxy.jar")
    Path proxyJar;

    @Option(names = "--ledger-jar", description = "The ledger consumer jar, for the messaging scenarios (default: ${DEFAULT-VALUE}).",
            defaultValue = "demo/ledger-consumer/target/ledger-consumer.jar")
    Path ledgerJar;

    @Option(names = "--kafka-classpath", description = "File with the class path of the Kafka broker the messaging scenarios start "
            + "(default: ${DEFAULT-VALUE}).", defaultValue = "demo/lab/target/kafka-broker.classpath")
    Path kafkaClassPath;

    /** Every row under its pattern's group id, which --scenarios also takes; lines wrap at the tables' width. */
    static String listing() {
        StringBuilder text = new StringBuilder();
        for (Group group : Group.values()) {
            text.append(String.format("%s: %s%n", group.id(), group.title()));
            for (Scenario s : Scenarios.all()) {
                if (Catalogue.group(s) == group) {
                    listed(text, s.id(), s.strategy().label() + " x " + s.variant().label() + " x " + s.fault().label() + " -> expected: "
                            + s.expectation().label(), "");
                }
            }
            for (PatternRow row : Patterns.all()) {
                if (row.group() == group) {
                    String sides = String.join(" | ", row.sides().stream().map(side -> side.label() + " (" + side.expected().label() + ")").toList());
                    listed(text, row.id(), sides + " x " + row.fault(), (needs(row.needs()).trim()
                            + (Patterns.optIn(row) ? " [opt-in: runs only when named]" : "")).trim());
                }
            }
        }
        return text.toString();
    }

    /** "  id  what", wrapped under "what"; the tag (what the row needs) is never split. */
    private static void listed(StringBuilder text, String id, String what, String tag) {
        String indent = " ".repeat(21);
        List<String> lines = new ArrayList<>(TableRenderer.wrap(what, TableRenderer.WIDTH - indent.length()));
        if (!tag.isEmpty()) {
            int last = lines.size() - 1;
            if (lines.get(last).length() + 1 + tag.length() <= TableRenderer.WIDTH - indent.length()) {
                lines.set(last, lines.get(last) + " " + tag);
            } else {
                lines.add(tag);
            }
        }
        text.append(String.format("  %-18s %s%n", id, lines.get(0)));
        lines.subList(1, lines.size()).forEach(line -> text.append(indent).append(line).append(System.lineSeparator()));
    }

    private static String needs(PatternRow.Needs needs) {
        return switch (needs) {
            case DATABASE -> "";
            case KAFKA -> " [Kafka broker]";
            case REDIS_SERVER -> " [redis-server]";
            case POSTGRESQL -> " [PostgreSQL only]";
            case POSTGRESQL_SERVERS -> " [PostgreSQL server binaries]";
        };
    }

    private FleetSettings fleetSettings() {
        FleetSettings fleet = longFleet ? FleetSettings.longRun() : FleetSettings.defaults();
        if (fleetInstances != fleet.instances()) {
            fleet = fleet.withInstances(fleetInstances);
        }
        fleet = fleet.withCoalesce(FleetCoalesce.fromFlag(fleetCoalesce.trim().toLowerCase(java.util.Locale.ROOT)));
        return fleetPayments == null ? fleet : fleet.withPayments(fleetPayments);
    }

    public static void main(String[] args) {
        System.exit(new CommandLine(new LabMain()).execute(args));
    }

    @Override
    public Integer call() throws Exception {
        if (list) {
            System.out.print(listing());
            return 0;
        }
        LabSettings settings;
        try {
            settings = new LabSettings(payments, concurrency, kills, seed, db, out, Catalogue.select(scenarios), fleetSettings());
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(new CommandLine(this), e.getMessage());
        }
        LabReport report;
        try {
            report = new Lab(settings, Components.fromJars(gatewayJar, serviceJar, proxyJar, ledgerJar, kafkaClassPath), System.out).run();
        } catch (IllegalStateException e) {
            System.err.println("idem lab: " + e.getMessage());
            return 2;
        }
        if (!report.allAsExpected()) {
            System.err.println("idem lab: some scenarios did not show what they exist to show (see the last column)");
            return 1;
        }
        return 0;
    }
}
