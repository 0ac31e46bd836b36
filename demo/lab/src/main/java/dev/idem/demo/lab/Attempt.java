package dev.idem.demo.lab;

/**
 * One HTTP request a client made for a payment, as the client saw it.
 *
 * @param sender         which of the payment's concurrent senders (0 unless double-clicking)
 * @param number         1 for the sender's first try
 * @param key            the Idempotency-Key sent, or null
 * @param startMillis    when it started, in milliseconds since the scenario began
 * @param durationMicros until the answer, or until the failure
 * @param sent           the request was written to a connection (a refused connection sends nothing)
 * @param status         the answer's status, 0 if none came
 * @param failure        why no answer came (connection refused, closed without a response, timeout), else null
 * @param replayed       the answer said {@code Idempotent-Replayed: true}
 * @param body           the answer's body, kept for 2xx answers (to compare replies) and 410 ones (to read their problem type)
 */
public record Attempt(int sender, int number, String key, long startMillis, long durationMicros, boolean sent, int status,
                      String failure, boolean replayed, String body) {

    public boolean answered() {
        return status > 0;
    }

    public boolean succeeded() {
        return status >= 200 && status < 300;
    }

    /** A 410 {@code key-expired}: the key's request completed earlier, its response is no longer kept, and nothing ran. */
    public boolean expired() {
        return status == 410 && body != null && body.contains(PaymentsServiceContract.KEY_EXPIRED_TYPE);
    }
}
