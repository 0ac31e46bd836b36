package dev.idem.demo.lab;

import java.util.ArrayList;
import java.util.List;

/** Everything the client did for one logical payment. Thread-safe: concurrent senders add to it. */
public final class PaymentRecord {
    private final Payment payment;
    private final List<Attempt> attempts = new ArrayList<>();

    public PaymentRecord(Payment payment) {
        this.payment = payment;
    }

    public Payment payment() {
        return payment;
    }

    public synchronized void add(Attempt attempt) {
        attempts.add(attempt);
    }

    public synchronized List<Attempt> attempts() {
        return List.copyOf(attempts);
    }

    /** Some sender got a 2xx: the client believes the payment went through. */
    public synchronized boolean confirmed() {
        return attempts.stream().anyMatch(Attempt::succeeded);
    }

    public synchronized int requestsSent() {
        return (int) attempts.stream().filter(Attempt::sent).count();
    }
}
