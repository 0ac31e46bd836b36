package dev.idem.demo.payments;

import java.time.Duration;
import java.net.URI;

/**
 * A failure answered as an RFC 9457 {@code application/problem+json} body. Details name what is wrong
 * with a request, never a key's value, a card or a body.
 */
public final class PaymentProblem extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private static final String TYPE_PREFIX = "urn:idem:demo:problem:";

    private final int status;
    private final URI type;
    private final String title;
    private final transient Duration retryAfter;

    private PaymentProblem(int status, String type, String title, String detail, Duration retryAfter) {
        super(detail, null, false, false);
        this.status = status;
        this.type = URI.create(TYPE_PREFIX + type);
        this.title = title;
        this.retryAfter = retryAfter;
    }

    /** 400: the body is not a valid payment. */
    public static PaymentProblem invalid(String detail) {
        return new PaymentProblem(400, "invalid-payment", "Invalid payment", detail, null);
    }

    /** 400: the body is not well-formed JSON. */
    public static PaymentProblem malformedJson() {
        return new PaymentProblem(400, "malformed-json", "Malformed JSON", "the body is not well-formed JSON", null);
    }

    /** 413: the body is larger than the service reads. */
    public static PaymentProblem tooLarge(long limit) {
        return new PaymentProblem(413, "request-too-large", "Request too large",
                "the request body is larger than the " + limit + " bytes accepted", null);
    }

    /** 415: not JSON. */
    public static PaymentProblem unsupportedMediaType() {
        return new PaymentProblem(415, "unsupported-media-type", "Unsupported media type", "send Content-Type: application/json", null);
    }

    /** 400: the revenue range is missing, not ISO-8601 instants, empty, too long or not on minute boundaries. */
    public static PaymentProblem invalidRange(String detail) {
        return new PaymentProblem(400, "invalid-range", "Invalid range", detail, null);
    }

    /** 404: no payment with this id. */
    public static PaymentProblem notFound() {
        return new PaymentProblem(404, "payment-not-found", "Payment not found", "no payment has this id", null);
    }

    /** 400: the Idempotency-Key header is malformed (only the broken variant parses keys itself). */
    public static PaymentProblem invalidKey(String rule) {
        return new PaymentProblem(400, "key-invalid", "Invalid idempotency key", rule, null);
    }

    /** 409: another request with this key is running. */
    public static PaymentProblem keyInUse(Duration retryAfter) {
        return new PaymentProblem(409, "key-in-use", "Request in progress",
                "a request with this Idempotency-Key is still being processed; retry later", retryAfter);
    }

    /** 422: the key was used for another request. */
    public static PaymentProblem keyMismatch() {
        return new PaymentProblem(422, "key-mismatch", "Idempotency key reused",
                "this Idempotency-Key was already used for a different request; use a new key for a new payment", null);
    }

    /** 502: the gateway answered with an error; nothing here is stored, a retry with the same key resumes. */
    public static PaymentProblem gatewayFailed(int gatewayStatus) {
        return new PaymentProblem(502, "gateway-failed", "Card gateway failed",
                "the card gateway answered " + gatewayStatus + "; retry with the same Idempotency-Key", Duration.ofSeconds(1));
    }

    /** 503: the gateway did not answer (refused, reset, timed out). */
    public static PaymentProblem gatewayUnavailable(String what) {
        return new PaymentProblem(503, "gateway-unavailable", "Card gateway unavailable",
                "the card gateway " + what + "; retry with the same Idempotency-Key", Duration.ofSeconds(1));
    }

    /**
     * 503: the service's own database failed a payment's statement in a way that passes (the connection
     * lost or terminated, the pool out of connections, the statement cancelled or rolled back by a race).
     * The phase that ran it did not finish, so a retry with the same key runs it again, harmlessly.
     */
    public static PaymentProblem databaseUnavailable(String what) {
        return new PaymentProblem(503, "database-unavailable", "Database unavailable",
                "the service's database could not " + what + " now; retry with the same Idempotency-Key", Duration.ofSeconds(1));
    }

    public int status() {
        return status;
    }

    public URI type() {
        return type;
    }

    public String title() {
        return title;
    }

    /** A Retry-After hint, or null. */
    public Duration retryAfter() {
        return retryAfter;
    }
}
