package dev.idem.webflux;

import java.util.Objects;
import org.springframework.web.server.ServerWebExchange;
import reactor.core.publisher.Mono;

/**
 * Decides, per exchange, whether the {@link IdempotencyWebFilter} covers it, whether the key is
 * required, and which {@code Idem} runs it ({@link ExchangePolicy}). A framework integration
 * typically answers from its handler mapping (an annotation on the endpoint).
 *
 * <p>Called only for exchanges on one of the filter's routes, before the key header or the body is
 * read. It must not read the body, must not block, must be thread-safe, and must emit one policy (an
 * empty Mono is an error). An error it emits fails the exchange.
 */
@FunctionalInterface
public interface ExchangePolicyResolver {

    Mono<ExchangePolicy> resolve(ServerWebExchange exchange);

    /** The same policy for every exchange; {@code always(ExchangePolicy.required())} is the filter's default. */
    static ExchangePolicyResolver always(ExchangePolicy policy) {
        Objects.requireNonNull(policy, "policy is null");
        Mono<ExchangePolicy> answer = Mono.just(policy);
        return exchange -> answer;
    }
}
