package dev.idem.demo.lab;

import java.util.Objects;

/**
 * How the fleet row runs: instances behind the balancer, the payments of the fleet and of its control
 * side, their arrival rate, and how many faults of each kind the nemesis injects (spread over the
 * traffic, in an order drawn from the row's seed).
 *
 * @param instances        payments-service instances on one PostgreSQL database
 * @param payments         logical payments of the correct fleet
 * @param perSecond        payments started per second (a steady arrival rate)
 * @param controlPayments  logical payments of the control fleet (each instance its own in-memory store)
 * @param kills            SIGKILLs of an instance (the supervisor restarts it)
 * @param pauses           SIGSTOPs longer than the lease, then SIGCONT
 * @param terminations     pg_terminate_backend of the instances' connections
 * @param blackholes       the TCP proxy in front of PostgreSQL forwards nothing for a few seconds
 * @param poolPressures    an instance's handlers hold pool connections for a few seconds
 * @param gatewayLatencies the TCP proxy in front of the card gateway holds its traffic for a few seconds
 * @param preset           "default", "long" or "custom", for the report
 * @param coalesce         which instances' stores coalesce commits
 */
public record FleetSettings(int instances, int payments, int perSecond, int controlPayments, int kills, int pauses, int terminations,
                            int blackholes, int poolPressures, int gatewayLatencies, String preset, FleetCoalesce coalesce) {
    public FleetSettings {
        Objects.requireNonNull(coalesce, "coalesce");
        if (instances < 2) {
            throw new IllegalArgumentException("a fleet needs at least 2 instances, was " + instances);
        }
        if (payments < 1 || controlPayments < 1) {
            throw new IllegalArgumentException("fleet payments must be at least 1, was " + Math.min(payments, controlPayments));
        }
        if (perSecond < 1) {
            throw new IllegalArgumentException("fleet payments per second must be at least 1, was " + perSecond);
        }
        if (Math.min(Math.min(kills, pauses), Math.min(Math.min(terminations, blackholes), Math.min(poolPressures, gatewayLatencies))) < 0) {
            throw new IllegalArgumentException("nemesis counts must not be negative");
        }
    }

    /** The default run: short, every kind of fault once or twice, sized to keep {@code ./idem lab} within a few minutes. */
    public static FleetSettings defaults() {
        return new FleetSettings(3, 150, 10, 40, 1, 1, 1, 1, 1, 1, "default", FleetCoalesce.MIXED);
    }

    /** {@code --long}: 10,000 payments, at least 20 SIGKILLs, 20 pauses and 10 database faults. */
    public static FleetSettings longRun() {
        return new FleetSettings(3, 10_000, 20, 300, 20, 20, 6, 6, 6, 6, "long", FleetCoalesce.MIXED);
    }

    /** These settings with another number of instances. */
    public FleetSettings withInstances(int count) {
        return new FleetSettings(count, payments, perSecond, controlPayments, kills, pauses, terminations, blackholes, poolPressures,
                gatewayLatencies, "custom", coalesce);
    }

    /** These settings with another number of payments for the correct fleet. */
    public FleetSettings withPayments(int count) {
        return new FleetSettings(instances, count, perSecond, controlPayments, kills, pauses, terminations, blackholes, poolPressures,
                gatewayLatencies, "custom", coalesce);
    }

    /** These settings with another choice of coalescing instances. */
    public FleetSettings withCoalesce(FleetCoalesce choice) {
        return new FleetSettings(instances, payments, perSecond, controlPayments, kills, pauses, terminations, blackholes, poolPressures,
                gatewayLatencies, preset, choice);
    }

    /** Every fault the nemesis injects. */
    public int faults() {
        return kills + pauses + terminations + blackholes + poolPressures + gatewayLatencies;
    }

    /** Faults of the database: connections terminated and blackholes. */
    public int databaseFaults() {
        return terminations + blackholes;
    }
}
