package dev.idem.docs.samples.completion;

import dev.idem.Execution;
import dev.idem.docs.samples.CardGateway;
import dev.idem.servlet.IdempotencyFilter;
import dev.idem.spring.Idempotent;
import jakarta.servlet.http.HttpServletRequest;
import java.util.Map;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;

/**
 * The completable route of docs/completer.md, as printed (outside the starter samples' application,
 * so that it adds no completer to it); the starter's own tests run such a route against PostgreSQL and SQLite.
 */
@RestController
public class CompletablePaymentsController {
    private final CardGateway gateway;

    CompletablePaymentsController(CardGateway gateway) {
        this.gateway = gateway;
    }

    // sample: completer-spring-route
    @PostMapping("/payments")
    @Idempotent(completable = true)          // the record stores the request; operation "http:POST:/payments"
    ResponseEntity<Map<String, String>> pay(@RequestBody Map<String, Long> order, HttpServletRequest request) throws Exception {
        Execution run = IdempotencyFilter.execution(request).orElseThrow();
        String charge = run.phase("charge", key -> gateway.charge(key, order.get("amount")));
        return ResponseEntity.status(201).body(Map.of("charge", charge));
    }
    // end sample
}
