package dev.idem.demo.lab;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * One idempotent payment whose response was lost and whose retry was answered from the stored
 * response, for the report's sequence diagram. Picked from what was measured: a payment with exactly
 * one charge, whose first attempt got no answer and whose second was a 2xx marked replayed. Since the
 * second attempt was a replay, the charge came from the first: its response was lost on the way back.
 */
public record ReplaySample(String scenarioId, Payment payment, List<Attempt> attempts, LedgerCharge charge) {

    static Optional<ReplaySample> find(List<ScenarioResult> results) {
        List<ScenarioResult> idempotent = new ArrayList<>(results.stream()
                .filter(r -> r.scenario().strategy() == ClientStrategy.IDEMPOTENT && r.scenario().variant() == ServerVariant.CORRECT)
                .toList());
        // The lossy network is the plainest story; other faults follow.
        idempotent.sort(Comparator.comparing(r -> r.scenario().fault() != Fault.LOSSY_NETWORK));
        for (ScenarioResult result : idempotent) {
            for (PaymentRecord record : result.records()) {
                List<LedgerCharge> charges = result.charges().stream().filter(c -> c.card().equals(record.payment().card())).toList();
                List<Attempt> attempts = record.attempts().stream().filter(a -> a.sender() == 0).toList();
                Optional<Attempt> replay = replayAfterLostFirst(attempts);
                if (charges.size() == 1 && replay.isPresent()) {
                    return Optional.of(new ReplaySample(result.scenario().id(), record.payment(),
                            List.of(attempts.get(0), replay.get()), charges.get(0)));
                }
            }
        }
        return Optional.empty();
    }

    /**
     * The replayed answer to a payment whose first attempt got no answer, if every attempt between
     * them was told "in progress" (409): those ran nothing, so the replay proves the first attempt ran.
     */
    private static Optional<Attempt> replayAfterLostFirst(List<Attempt> attempts) {
        if (attempts.size() < 2 || !attempts.get(0).sent() || attempts.get(0).answered() || attempts.get(0).key() == null) {
            return Optional.empty();
        }
        String key = attempts.get(0).key();
        for (Attempt next : attempts.subList(1, attempts.size())) {
            if (!key.equals(next.key())) {
                return Optional.empty();
            }
            if (next.succeeded() && next.replayed()) {
                return Optional.of(next);
            }
            if (next.status() != 409) {
                return Optional.empty();
            }
        }
        return Optional.empty();
    }
}
