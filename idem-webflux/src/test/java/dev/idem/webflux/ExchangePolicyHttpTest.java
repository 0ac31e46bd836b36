package dev.idem.webflux;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.Idem;
import dev.idem.IdempotencyKey;
import dev.idem.http.RequestScopes;
import dev.idem.spi.IdempotencyStore;
import dev.idem.spi.RecordKey;
import java.net.http.HttpResponse;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.springframework.http.HttpStatus;
import org.springframework.web.server.WebHandler;
import reactor.core.publisher.Mono;

/**
 * An {@link ExchangePolicyResolver} decides per exchange, on PostgreSQL under BlockHound: a required
 * key, an optional one, a path passed through, and an endpoint run by an engine of its own.
 */
class ExchangePolicyHttpTest extends WebFilterTestSupport {

    @Test
    void theResolversPolicyDecidesCoverageTheKeyRuleAndTheEngine() throws Exception {
        IdempotencyStore filterStore = open(StoreBackend.POSTGRESQL).store();
        IdempotencyStore ownStore = open(StoreBackend.POSTGRESQL).store();
        Idem own = Idem.builder().store(ownStore).build();
        Map<String, ExchangePolicy> byPath = Map.of(
                "/required", ExchangePolicy.required(),
                "/optional", ExchangePolicy.optional(),
                "/passed", ExchangePolicy.notCovered(),
                "/own", ExchangePolicy.required().withIdem(own));
        IdempotencyWebFilter filter = filter(Idem.builder().store(filterStore).build())
                .policyResolver(exchange -> Mono.just(byPath.get(exchange.getRequest().getPath().value())))
                .build();
        Map<String, AtomicInteger> runs = new ConcurrentHashMap<>();
        Map<String, WebHandler> routes = new ConcurrentHashMap<>();
        byPath.keySet().forEach(path -> routes.put(path, exchange -> WebFluxServer.json(exchange, HttpStatus.CREATED,
                "{\"run\":" + runs.computeIfAbsent(path, p -> new AtomicInteger()).incrementAndGet() + "}")));
        WebFluxServer server = serve(filter, routes);

        assertThat(post(server.uri("/required"), null, "{}").statusCode()).as("required: no key").isEqualTo(400);
        assertThat(post(server.uri("/optional"), null, "{}").statusCode()).as("optional: no key runs").isEqualTo(201);
        String key = UUID.randomUUID().toString();
        for (String path : byPath.keySet()) {
            HttpResponse<String> first = post(server.uri(path), key, "{}");
            HttpResponse<String> repeat = post(server.uri(path), key, "{}");
            assertThat(first.statusCode()).as(path).isEqualTo(201);
            assertThat(repeat.headers().firstValue("Idempotent-Replayed").isPresent()).as(path + " replayed").isEqualTo(!path.equals("/passed"));
        }
        assertThat(runs.get("/passed")).as("not covered: every request runs").hasValue(2);
        assertThat(runs.get("/optional")).as("the keyless one and the keyed one").hasValue(2);
        assertThat(runs.get("/own")).hasValue(1);
        assertThat(ownStore.find(recordKey("/own", key))).as("the endpoint's own engine stored it").isPresent();
        assertThat(filterStore.find(recordKey("/own", key))).as("not the filter's").isEmpty();
        assertThat(filterStore.find(recordKey("/required", key))).isPresent();
    }

    private static RecordKey recordKey(String path, String key) {
        return new RecordKey(RequestScopes.scope(RequestScopes.ANONYMOUS, "POST", path), IdempotencyKey.of(key));
    }
}
