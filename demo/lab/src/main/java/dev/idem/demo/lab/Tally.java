package dev.idem.demo.lab;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** Counts a scenario's {@link Figures} from the client's records and the gateway's ledger. Pure. */
public final class Tally {
    private Tally() {
    }

    /**
     * @param records the scenario's payments and what their clients did
     * @param ledger  the gateway's charges; rows whose card is not one of these payments' are ignored
     *                (they belong to another scenario)
     */
    public static Figures count(List<PaymentRecord> records, List<LedgerCharge> ledger) {
        Map<String, Integer> chargesByCard = new HashMap<>();
        for (PaymentRecord record : records) {
            chargesByCard.put(record.payment().card(), 0);
        }
        int charges = 0;
        for (LedgerCharge charge : ledger) {
            if (chargesByCard.containsKey(charge.card())) {
                chargesByCard.merge(charge.card(), 1, Integer::sum);
                charges++;
            }
        }

        int requests = 0;
        int lost = 0;
        int duplicated = 0;
        int unconfirmed = 0;
        int confirmedWithoutCharge = 0;
        int expired = 0;
        Map<String, Integer> histogram = new LinkedHashMap<>();
        for (String bucket : List.of("0", "1", "2", "3+")) {
            histogram.put(bucket, 0);
        }
        Map<String, Set<String>> repliesByKey = new HashMap<>();
        List<Double> latencies = new ArrayList<>();
        for (PaymentRecord record : records) {
            int charged = chargesByCard.get(record.payment().card());
            boolean confirmed = record.confirmed();
            if (charged == 0 && !confirmed) {
                lost++;
            }
            if (charged == 0 && confirmed) {
                confirmedWithoutCharge++;
            }
            if (charged > 0 && !confirmed) {
                unconfirmed++;
            }
            if (charged > 1) {
                duplicated++;
            }
            histogram.merge(charged >= 3 ? "3+" : Integer.toString(charged), 1, Integer::sum);
            for (Attempt attempt : record.attempts()) {
                if (attempt.sent()) {
                    requests++;
                    latencies.add(attempt.durationMicros() / 1000.0);
                }
                if (attempt.expired()) {
                    expired++;
                }
                if (attempt.key() != null && attempt.succeeded()) {
                    repliesByKey.computeIfAbsent(attempt.key(), k -> new HashSet<>()).add(attempt.status() + " " + attempt.body());
                }
            }
        }
        int differing = (int) repliesByKey.values().stream().filter(replies -> replies.size() > 1).count();
        return new Figures(records.size(), requests, charges, lost, duplicated, unconfirmed, differing, confirmedWithoutCharge, expired,
                percentile(latencies, 50), percentile(latencies, 99), histogram);
    }

    /** Nearest-rank percentile; 0 for no values. */
    static double percentile(List<Double> values, int percent) {
        if (values.isEmpty()) {
            return 0;
        }
        double[] sorted = values.stream().mapToDouble(Double::doubleValue).toArray();
        Arrays.sort(sorted);
        int rank = (int) Math.ceil(percent / 100.0 * sorted.length);
        return sorted[Math.max(0, rank - 1)];
    }

    /** Whether what was counted is what the scenario exists to show. */
    public static boolean asExpected(Expectation expectation, Figures f) {
        return switch (expectation) {
            case LOSES_PAYMENTS -> f.lost() > 0;
            case DUPLICATES_CHARGES -> f.duplicated() > 0;
            case DUPLICATES_LEDGER_ENTRIES, EXACTLY_ONCE -> exactlyOnce(f);
            // One late retry per payment: each must have been told its key expired, and none may have run.
            case ANSWERS_EXPIRED -> exactlyOnce(f) && f.expired() == f.payments();
            case LEAVES_UNRECORDED, COMPLETES_ABANDONED -> false; // decided with the abandoned payments' figures
        };
    }

    /**
     * Whether a give-up row shows what it exists to show. Both need a charged payment whose client gave
     * up (a row where no kill fell after a charge shows nothing) and no payment charged twice. Without a
     * completer some of them stay unrecorded while their clients stay away; with one, none does, every
     * late retry of a charged payment is a replay, and after the late retries the figures are exactly once.
     */
    public static boolean asExpected(Expectation expectation, Figures f, Abandonment a) {
        if (a == null || a.charged() == 0 || f.duplicated() > 0) {
            return false;
        }
        return switch (expectation) {
            case LEAVES_UNRECORDED -> a.unrecorded() > 0;
            case COMPLETES_ABANDONED -> a.unrecorded() == 0 && a.lateReplayed() >= a.charged() && exactlyOnce(f);
            default -> asExpected(expectation, f);
        };
    }

    /**
     * Whether a messaging scenario shows what it exists to show: its HTTP side exactly once, and the
     * ledger with every confirmed payment, each once ({@code EXACTLY_ONCE}) or some twice
     * ({@code DUPLICATES_LEDGER_ENTRIES}). Without ledger figures, the HTTP side alone decides.
     */
    public static boolean asExpected(Expectation expectation, Figures f, LedgerFigures ledger) {
        if (ledger == null) {
            return asExpected(expectation, f);
        }
        boolean complete = exactlyOnce(f) && ledger.missing() == 0;
        return switch (expectation) {
            case DUPLICATES_LEDGER_ENTRIES -> complete && ledger.duplicatedEntries() > 0;
            case EXACTLY_ONCE -> complete && ledger.duplicatedEntries() == 0 && ledger.entries() == ledger.paid();
            case LOSES_PAYMENTS, DUPLICATES_CHARGES, ANSWERS_EXPIRED, LEAVES_UNRECORDED, COMPLETES_ABANDONED -> asExpected(expectation, f);
        };
    }

    /**
     * The consumer side, counted from the ledger like the charges are from the gateway's: entries whose
     * card is not one of the scenario's payments' are ignored.
     *
     * @param cards      the cards of the scenario's payments
     * @param paidCards  the cards of the payments the service confirmed
     * @param entryCards the card of every ledger entry, one element per entry
     */
    public static LedgerFigures countLedger(Set<String> cards, Set<String> paidCards, List<String> entryCards, int kills, int starts) {
        Set<String> seen = new HashSet<>();
        int entries = 0;
        int duplicated = 0;
        for (String card : entryCards) {
            if (!cards.contains(card)) {
                continue;
            }
            entries++;
            if (!seen.add(card)) {
                duplicated++;
            }
        }
        int missing = (int) paidCards.stream().filter(card -> !seen.contains(card)).count();
        return new LedgerFigures(paidCards.size(), entries, duplicated, missing, kills, starts);
    }

    private static boolean exactlyOnce(Figures f) {
        return f.lost() == 0 && f.duplicated() == 0 && f.unconfirmed() == 0 && f.differingKeys() == 0
                && f.confirmedWithoutCharge() == 0 && f.charges() == f.payments();
    }
}
