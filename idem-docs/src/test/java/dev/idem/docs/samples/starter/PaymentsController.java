package dev.idem.docs.samples.starter;

import dev.idem.spring.Idempotent;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;

/** The quick start of README.md, docs/getting-started.md and docs/http.md: one annotation on the handler. */
@RestController
class PaymentsController {
    private final Payments payments;

    PaymentsController(Payments payments) {
        this.payments = payments;
    }

    // sample: readme-quickstart, http-starter-endpoint, getting-started-endpoint
    @PostMapping("/payments")
    @Idempotent                                   // Idempotency-Key required; 24 h retention; 409 while in progress
    ResponseEntity<Payment> pay(@RequestBody PaymentRequest request) { return payments.charge(request); }
    // end sample

    record PaymentRequest(long amount, String currency) {
    }

    record Payment(String id, long amount, String currency) {
    }
}
