package dev.idem.demo.payments;

/** A payment as stored and as answered: {@code status} is {@code pending} until the gateway charged it, then {@code paid}. */
public record Payment(String id, String status, String chargeId, long amount, String currency) {
    public static final String PENDING = "pending";
    public static final String PAID = "paid";
}
