package dev.idem.demo.payments;

import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;

/** {@code GET /payments/{id}}: the payment as stored, {@code pending} or {@code paid}. Reads are never idempotency-checked. */
@RestController
public class PaymentQueryController {
    private final PaymentRepository payments;
    private final PaymentProcessor processor;

    public PaymentQueryController(PaymentRepository payments, PaymentProcessor processor) {
        this.payments = payments;
        this.processor = processor;
    }

    @GetMapping("/payments/{id}")
    public ResponseEntity<byte[]> find(@PathVariable("id") String id) {
        Payment payment = payments.find(id).orElseThrow(PaymentProblem::notFound);
        return ResponseEntity.ok().contentType(MediaType.APPLICATION_JSON).body(processor.body(payment));
    }
}
