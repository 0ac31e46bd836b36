package dev.idem.demo.lab;

import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Everything the fleet checker counted over one fleet's whole history: the card gateway's ledger, the
 * clients' records, the service database's payment rows and the instances' own counters.
 *
 * <p>Must be 0 for a correct fleet: {@code chargedTwice}, {@code okWithoutCharge}, {@code bodiesDiffer},
 * {@code chargeNotOnRow}, {@code twoRowsPerKey}, {@code unaskedCharges}, {@link #answered500()}.
 *
 * @param instances       instances behind the balancer
 * @param payments        logical payments (one key each)
 * @param requests        HTTP requests the clients wrote to a connection, hedges included
 * @param hedges          requests sent while another of the same key still hung
 * @param charges         the gateway's charges for these payments
 * @param chargedTwice    payments charged more than once
 * @param okWithoutCharge payments a 2xx confirmed that the gateway never charged
 * @param bodiesDiffer    keys whose 2xx bodies were not all byte-identical
 * @param chargeNotOnRow  2xx answers whose payment row is not paid with the answer's charge (or whose charge the gateway lacks)
 * @param twoRowsPerKey   payments with more than one payment row
 * @param unaskedCharges  charges in the gateway for a card no payment of the fleet used
 * @param gaveUp          payments whose client gave up without a 2xx (deadline)
 * @param unconfirmed     of those, payments the gateway charged anyway
 * @param failures        answers that were not 2xx, by kind ("500", "502", "503", "no answer", ...)
 * @param p50Millis       median request latency
 * @param p99Millis       99th percentile request latency
 * @param counters        the instances' counters (GET /internal/counters), summed over every life of every instance
 * @param restarts        instances the supervisor restarted after they exited
 * @param timeline        the nemesis's and the supervisor's events, in order
 * @param confirmedPerSecond 2xx answers per second of the run, for the chart
 * @param coalescing      each instance's coalesced commits ("on"/"off" and the flag it was given), by label; empty for the control
 */
public record FleetFigures(int instances, int payments, int requests, int hedges, int charges, int chargedTwice, int okWithoutCharge,
                           int bodiesDiffer, int chargeNotOnRow, int twoRowsPerKey, int unaskedCharges, int gaveUp, int unconfirmed,
                           Map<String, Integer> failures, double p50Millis, double p99Millis, Map<String, Long> counters, int restarts,
                           List<NemesisEvent> timeline, List<Integer> confirmedPerSecond, Map<String, String> coalescing) {
    public FleetFigures {
        failures = Map.copyOf(failures);
        counters = Map.copyOf(counters);
        timeline = List.copyOf(timeline);
        confirmedPerSecond = List.copyOf(confirmedPerSecond);
        coalescing = Collections.unmodifiableMap(new TreeMap<>(coalescing));
    }

    /** The sum of the must-be-0 figures: 0 for a fleet that kept exactly-once and never answered a final-looking 500. */
    public int violations() {
        return chargedTwice + okWithoutCharge + bodiesDiffer + chargeNotOnRow + twoRowsPerKey + unaskedCharges + answered500();
    }

    /**
     * Requests answered 500. A client reads a 500 as final, so a failure that is safe to retry must be
     * answered 503 or 409 with {@code Retry-After}, never 500.
     */
    public int answered500() {
        return failures.getOrDefault("500", 0);
    }

    /** How many faults of a kind the nemesis injected. */
    public long count(String kind) {
        return timeline.stream().filter(e -> e.kind().equals(kind)).count();
    }

    /** One of the instances' summed counters, 0 if none reported it. */
    public long counter(String name) {
        return counters.getOrDefault(name, 0L);
    }
}
