package dev.idem.demo.lab;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Counts a fleet's {@link FleetFigures} over its whole history, from three sources that do not trust
 * each other: the card gateway's ledger (what was charged), the clients' records (what they were told)
 * and the service database's payment rows (what the service wrote). Pure.
 */
final class FleetChecker {
    private static final JsonMapper JSON = JsonMapper.builder().build();

    /** A row of the service's {@code payment} table. */
    record PaymentRow(String id, String card, String status, String chargeId) {
    }

    /** What the checker reads besides the records and ledger: the fleet's own history. */
    record History(int instances, Map<String, Long> counters, int restarts, List<NemesisEvent> timeline, Map<String, String> coalescing) {
    }

    private FleetChecker() {
    }

    /**
     * @param cardPrefix the prefix of every card this fleet's payments used: a ledger row with it and a
     *                   card no payment used is a charge nobody asked for
     */
    static FleetFigures check(List<PaymentRecord> records, List<LedgerCharge> ledger, List<PaymentRow> rows, String cardPrefix,
                              History history) {
        Set<String> cards = new HashSet<>();
        records.forEach(r -> cards.add(r.payment().card()));
        Map<String, List<LedgerCharge>> chargesByCard = new HashMap<>();
        int unasked = 0;
        for (LedgerCharge charge : ledger) {
            if (cards.contains(charge.card())) {
                chargesByCard.computeIfAbsent(charge.card(), c -> new ArrayList<>()).add(charge);
            } else if (charge.card().startsWith(cardPrefix)) {
                unasked++;
            }
        }
        Map<String, List<PaymentRow>> rowsByCard = new HashMap<>();
        for (PaymentRow row : rows) {
            rowsByCard.computeIfAbsent(row.card(), c -> new ArrayList<>()).add(row);
        }
        Counts counts = new Counts();
        for (PaymentRecord record : records) {
            count(record, chargesByCard.getOrDefault(record.payment().card(), List.of()),
                    rowsByCard.getOrDefault(record.payment().card(), List.of()), counts);
        }
        int charges = chargesByCard.values().stream().mapToInt(List::size).sum();
        return new FleetFigures(history.instances(), records.size(), counts.requests, counts.hedges, charges, counts.chargedTwice,
                counts.okWithoutCharge, counts.bodiesDiffer, counts.chargeNotOnRow, counts.twoRows, unasked, counts.gaveUp,
                counts.unconfirmed, counts.failures, Tally.percentile(counts.latencies, 50), Tally.percentile(counts.latencies, 99),
                history.counters(), history.restarts(), history.timeline(), perSecond(counts.confirmedAt), history.coalescing());
    }

    private static final class Counts {
        int requests;
        int hedges;
        int chargedTwice;
        int okWithoutCharge;
        int bodiesDiffer;
        int chargeNotOnRow;
        int twoRows;
        int gaveUp;
        int unconfirmed;
        final Map<String, Integer> failures = new TreeMap<>();
        final List<Double> latencies = new ArrayList<>();
        final List<Long> confirmedAt = new ArrayList<>();
    }

    private static void count(PaymentRecord record, List<LedgerCharge> charges, List<PaymentRow> rows, Counts counts) {
        boolean confirmed = record.confirmed();
        if (charges.size() > 1) {
            counts.chargedTwice++;
        }
        if (confirmed && charges.isEmpty()) {
            counts.okWithoutCharge++;
        }
        if (!confirmed) {
            counts.gaveUp++;
            if (!charges.isEmpty()) {
                counts.unconfirmed++;
            }
        }
        if (rows.size() > 1) {
            counts.twoRows++;
        }
        Set<String> bodies = new HashSet<>();
        boolean offRow = false;
        for (Attempt attempt : record.attempts()) {
            if (attempt.sent()) {
                counts.requests++;
                counts.latencies.add(attempt.durationMicros() / 1000.0);
                if (attempt.sender() > 0) {
                    counts.hedges++;
                }
            }
            if (attempt.succeeded()) {
                bodies.add(attempt.body());
                counts.confirmedAt.add(attempt.startMillis() + attempt.durationMicros() / 1000);
                offRow |= !onItsRow(attempt.body(), rows, charges);
            } else if (attempt.sent()) {
                counts.failures.merge(attempt.status() == 0 ? "no answer" : Integer.toString(attempt.status()), 1, Integer::sum);
            }
        }
        if (bodies.size() > 1) {
            counts.bodiesDiffer++;
        }
        if (offRow) {
            counts.chargeNotOnRow++;
        }
    }

    /** The 2xx body's payment row is paid with the body's charge, and the gateway has that charge for the card. */
    static boolean onItsRow(String body, List<PaymentRow> rows, List<LedgerCharge> charges) {
        JsonNode answer;
        try {
            answer = JSON.readTree(body);
        } catch (RuntimeException e) {
            return false;
        }
        String id = answer.path("id").asString("");
        String chargeId = answer.path("chargeId").asString("");
        boolean row = rows.stream().anyMatch(r -> r.id().equals(id) && "paid".equals(r.status()) && chargeId.equals(r.chargeId()));
        boolean charged = charges.stream().anyMatch(c -> c.chargeId().equals(chargeId));
        return row && charged;
    }

    /** 2xx answers per whole second since the traffic began. */
    private static List<Integer> perSecond(List<Long> confirmedAtMillis) {
        if (confirmedAtMillis.isEmpty()) {
            return List.of();
        }
        int seconds = (int) (confirmedAtMillis.stream().mapToLong(Long::longValue).max().orElse(0) / 1000) + 1;
        int[] buckets = new int[seconds];
        confirmedAtMillis.forEach(at -> buckets[(int) Math.max(0, at / 1000)]++);
        List<Integer> list = new ArrayList<>();
        for (int b : buckets) {
            list.add(b);
        }
        return list;
    }
}
