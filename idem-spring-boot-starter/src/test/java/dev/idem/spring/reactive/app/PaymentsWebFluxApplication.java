package dev.idem.spring.reactive.app;

import dev.idem.webflux.IdempotencyWebFilter;
import dev.idem.webflux.IdempotentRouteFilter;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.http.HttpStatus;
import org.springframework.web.reactive.function.server.RouterFunction;
import org.springframework.web.reactive.function.server.RouterFunctions;
import org.springframework.web.reactive.function.server.ServerResponse;

/**
 * A small Spring WebFlux application with idem's starter, as a user writes it: an annotated controller
 * ({@link PaymentsController}) and a functional route made idempotent with {@link IdempotentRouteFilter}
 * and the starter's filter. Every handler run counts one effect in {@link Effects}.
 */
@SpringBootApplication
public class PaymentsWebFluxApplication {

    @Bean
    Effects effects() {
        return new Effects();
    }

    /** {@code POST /refunds/{id}}: a functional route, idempotent through the starter's filter. */
    // sample: webflux-boot-route
    @Bean
    RouterFunction<ServerResponse> refunds(IdempotencyWebFilter idem, Effects effects) {
        return RouterFunctions.route()
                .POST("/refunds/{id}", request -> request.bodyToMono(String.class).flatMap(body -> {
                    int run = effects.record("refund");
                    return ServerResponse.status(HttpStatus.CREATED)
                            .bodyValue(Map.of("refund", request.pathVariable("id"), "run", run));
                }))
                .filter(IdempotentRouteFilter.of(idem))
                .build();
    }
    // end sample

    /** How often each handler ran. */
    public static final class Effects {
        private final Map<String, AtomicInteger> counts = new ConcurrentHashMap<>();

        /** Counts one run of {@code handler}; returns its number (1 for the first). */
        public int record(String handler) {
            return counts.computeIfAbsent(handler, h -> new AtomicInteger()).incrementAndGet();
        }

        public int count(String handler) {
            AtomicInteger count = counts.get(handler);
            return count == null ? 0 : count.get();
        }
    }
}
