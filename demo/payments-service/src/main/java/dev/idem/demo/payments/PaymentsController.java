package dev.idem.demo.payments;

import dev.idem.Execution;
import dev.idem.servlet.IdempotencyFilter;
import dev.idem.spring.Idempotent;
import jakarta.servlet.http.HttpServletRequest;
import java.net.URI;
import java.util.Optional;
import org.springframework.boot.autoconfigure.condition.ConditionalOnExpression;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;
import tools.jackson.databind.json.JsonMapper;

/**
 * {@code POST /payments} as idem means it (variants {@code correct} and {@code memory-store}): the
 * starter's filter claims the {@code Idempotency-Key} before this handler runs, the charge runs as
 * phases of that claim, and the 201 is stored before it is sent. The key is optional: a request
 * without one runs every time. The route is completable: the request is stored with the claim, so
 * that if this instance dies mid-payment and the client never comes back, the starter's completer
 * (any instance's) runs this handler again from the stored request and resumes after its last phase.
 */
@RestController
@ConditionalOnExpression("'${variant:correct}' != 'key-after-effect'")
public class PaymentsController {
    private final PaymentProcessor processor;
    private final RequestBodies bodies;
    private final JsonMapper json;

    public PaymentsController(PaymentProcessor processor, RequestBodies bodies, JsonMapper json) {
        this.processor = processor;
        this.bodies = bodies;
        this.json = json;
    }

    // sample: lab-payments-handler (docs/lab.md prints this handler; a test there compares the two)
    @PostMapping("/payments")
    @Idempotent(required = false, completable = true)   // no key: runs every time; completable: finished without the client
    public ResponseEntity<byte[]> pay(HttpServletRequest request) throws Exception {
        PaymentRequest payment = PaymentRequest.parse(bodies.readJson(request), json);          // bad input: a 4xx problem
        Optional<Execution> execution = IdempotencyFilter.execution(request);
        Payment paid = execution.isPresent() ? processor.payOnce(execution.get(), payment) : processor.payWithoutKey(payment);
        return created(paid, processor.body(paid));
    }
    // end sample

    static ResponseEntity<byte[]> created(Payment payment, byte[] body) {
        return ResponseEntity.created(URI.create("/payments/" + payment.id())).contentType(MediaType.APPLICATION_JSON).body(body);
    }
}
