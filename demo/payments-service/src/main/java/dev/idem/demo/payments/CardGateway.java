package dev.idem.demo.payments;

/** Charges a card. The key is the gateway's {@code Idempotency-Key}: the same key charges at most once. */
public interface CardGateway {

    /**
     * @return the gateway's charge id
     * @throws PaymentProblem 502 if the gateway answered with an error, 503 if it did not answer
     */
    String charge(String key, PaymentRequest payment);
}
