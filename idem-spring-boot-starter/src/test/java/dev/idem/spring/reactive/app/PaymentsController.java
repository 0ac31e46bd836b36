package dev.idem.spring.reactive.app;

import dev.idem.spring.Idempotent;
import java.util.Map;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;
import reactor.core.publisher.Mono;

/** Annotated WebFlux handlers: one {@code @Idempotent}, one not. */
@RestController
class PaymentsController {
    private final PaymentsWebFluxApplication.Effects effects;

    PaymentsController(PaymentsWebFluxApplication.Effects effects) {
        this.effects = effects;
    }

    // sample: webflux-boot-annotated
    @PostMapping("/payments/{account}")
    @Idempotent
    Mono<ResponseEntity<Map<String, Object>>> pay(@PathVariable String account, @RequestBody Mono<Map<String, Object>> body) {
        return body.map(request -> {
            int run = effects.record("pay");
            return ResponseEntity.status(HttpStatus.CREATED).header("X-Payment-Run", Integer.toString(run))
                    .body(Map.of("account", account, "amount", request.get("amount"), "run", run));
        });
    }
    // end sample

    @PostMapping("/notes")
    Mono<Map<String, Object>> note(@RequestBody Mono<String> body) {
        return body.map(text -> Map.of("run", effects.record("note")));
    }
}
