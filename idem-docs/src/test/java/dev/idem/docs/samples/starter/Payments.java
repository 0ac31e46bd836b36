package dev.idem.docs.samples.starter;

import dev.idem.docs.samples.starter.PaymentsController.Payment;
import dev.idem.docs.samples.starter.PaymentsController.PaymentRequest;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.springframework.http.ResponseEntity;
import org.springframework.stereotype.Service;

/** The quick start's service: counts the charges it makes, so that a test can tell a replay from a second charge. */
@Service
public class Payments {
    private static final Runnable NOTHING = () -> { };

    private final AtomicInteger charged = new AtomicInteger();
    /** Test seam: runs once inside the next charge, e.g. to hold it while a duplicate arrives. */
    private final AtomicReference<Runnable> beforeNextCharge = new AtomicReference<>(NOTHING);

    ResponseEntity<Payment> charge(PaymentRequest request) {
        beforeNextCharge.getAndSet(NOTHING).run();
        Payment payment = new Payment("pay_" + charged.incrementAndGet(), request.amount(), request.currency());
        return ResponseEntity.status(201).body(payment);
    }

    void beforeNextCharge(Runnable action) {
        beforeNextCharge.set(action);
    }

    public int charged() {
        return charged.get();
    }
}
