package dev.idem.docs.samples.starter;

import dev.idem.docs.samples.starter.PaymentsController.Payment;
import dev.idem.docs.samples.starter.PaymentsController.PaymentRequest;
import java.util.concurrent.atomic.AtomicInteger;
import org.springframework.http.ResponseEntity;
import org.springframework.stereotype.Service;

/** The quick start's service: counts the charges it makes, so that a test can tell a replay from a second charge. */
@Service
public class Payments {
    private final AtomicInteger charged = new AtomicInteger();

    ResponseEntity<Payment> charge(PaymentRequest request) {
        Payment payment = new Payment("pay_" + charged.incrementAndGet(), request.amount(), request.currency());
        return ResponseEntity.status(201).body(payment);
    }

    public int charged() {
        return charged.get();
    }
}
