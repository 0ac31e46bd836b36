package dev.idem.spring.reactive.app;

import dev.idem.webflux.IdempotencyWebFilter;
import dev.idem.webflux.IdempotentRouteFilter;
import dev.idem.IdemListener;
import dev.idem.Scope;
import java.util.Map;
import java.util.Set;
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

    /** The threads the engine's claims and replays ran on: the store scheduler's, never an event loop. */
    @Bean
    EngineThreads engineThreads() {
        return new EngineThreads();
    }

    /** Records the thread of each claim and replay the engine reports. */
    public static final class EngineThreads implements IdemListener {
        private final Set<String> names = ConcurrentHashMap.newKeySet();

        @Override
        public void claimed(Scope scope, int attempt) {
            names.add(Thread.currentThread().getName());
        }

        @Override
        public void replayed(Scope scope) {
            names.add(Thread.currentThread().getName());
        }

        public Set<String> names() {
            return Set.copyOf(names);
        }
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
