package dev.idem.webflux;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.Idem;
import dev.idem.jdbc.JdbcIdempotencyStore;
import dev.idem.testing.RealServices;
import dev.idem.testing.TestDatabase;
import java.net.http.HttpResponse;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.http.HttpStatus;

/** A PostgreSQL store whose database goes away: 503 with Retry-After, and the handler runs once it is back. */
class StoreOutageHttpTest extends WebFilterTestSupport {
    private final AtomicInteger calls = new AtomicInteger();
    private SwitchableDataSource dataSource;
    private WebFluxServer server;

    @BeforeEach
    void serve() {
        TestDatabase db = closing(RealServices.postgres());
        dataSource = new SwitchableDataSource(db.dataSource());
        JdbcIdempotencyStore store = JdbcIdempotencyStore.builder(dataSource).build();
        store.migrate();
        server = serve(filter(Idem.builder().store(store).build()).build(), Map.of(
                "/payments", exchange -> WebFluxServer.json(exchange, HttpStatus.CREATED, "{\"n\":" + calls.incrementAndGet() + "}"),
                "/fails-after", exchange -> {
                    calls.incrementAndGet();
                    dataSource.down(true); // the database goes while the handler runs
                    return WebFluxServer.json(exchange, HttpStatus.CREATED, "{}");
                }));
    }

    @Test
    void aStoreThatCannotBeReachedIs503WithRetryAfterAndNothingRuns() throws Exception {
        String key = newKey();
        dataSource.down(true);

        HttpResponse<String> down = post(server.uri("/payments"), key, "{}");
        dataSource.down(false);
        HttpResponse<String> retry = post(server.uri("/payments"), key, "{}");

        assertThat(down.statusCode()).isEqualTo(503);
        assertThat(down.headers().firstValue("Retry-After")).hasValue("2");
        assertThat(down.headers().firstValue("Content-Type")).hasValue("application/problem+json");
        assertThat(down.body()).contains("urn:idem:problem:store-unavailable").contains("was not processed");
        assertThat(retry.statusCode()).isEqualTo(201);
        assertThat(calls).hasValue(1);
    }

    @Test
    void aStoreFailingAfterTheHandlerRanIs503SayingTheOutcomeIsNotFinal() throws Exception {
        HttpResponse<String> response = post(server.uri("/fails-after"), newKey(), "{}");

        assertThat(response.statusCode()).isEqualTo(503);
        assertThat(response.headers().firstValue("Retry-After")).hasValue("2");
        assertThat(response.body()).contains("urn:idem:problem:store-unavailable").contains("not final");
        assertThat(calls).hasValue(1);
    }
}
