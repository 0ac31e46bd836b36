package dev.idem.demo.lab;

/**
 * What became of the payments whose client gave up after its first attempt (the rows of
 * {@link Fault#GIVE_UP_AFTER_CHARGE}): counted once the lab had waited, before any late retry, from the
 * gateway's ledger and the service's own payment rows; then how the one late retry of each was answered.
 *
 * @param gaveUp       payments whose one request that reached the service got no 2xx
 * @param charged      of those, the ones the gateway charged
 * @param unrecorded   of the charged ones, those the service had not recorded as paid when the lab looked
 *                     (money taken, the service's books silent)
 * @param waitedMillis how long the lab waited for the service after the traffic, before it looked
 * @param lateReplayed late retries answered with the stored response ({@code Idempotent-Replayed: true})
 * @param lateRan      late retries that ran the payment (or its rest) themselves, answering 201
 * @param lateOther    late retries answered otherwise (a 409, a 5xx, no answer)
 */
public record Abandonment(int gaveUp, int charged, int unrecorded, long waitedMillis, int lateReplayed, int lateRan, int lateOther) {
}
