package dev.idem.spring.reactive;

import dev.idem.spring.Idempotent;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;
import reactor.core.publisher.Mono;

/** {@code @Idempotent} on a GET handler: startup must refuse it, naming it. Outside the application's package, added on purpose. */
@RestController
public class RefusedGetController {
    @GetMapping("/balance")
    @Idempotent
    public Mono<String> balance() {
        return Mono.just("0");
    }
}
