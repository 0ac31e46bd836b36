package dev.idem.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.servlet.IdempotencyFilter;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.Test;

/**
 * Which answers the starter's filter stores, on a real Spring Boot application over real HTTP: the
 * default policy ({@code idem.not-stored-statuses}), an endpoint's {@code @Idempotent(notStored = ...)},
 * and a handler's {@code Idempotent-Store: no} on a plain and a transactional endpoint. A subclass per
 * backend.
 */
abstract class StoragePolicyAppTest extends AppTest {

    private static boolean hasStoreHeader(HttpResponse<?> response) {
        return response.headers().map().keySet().stream().anyMatch(name -> name.equalsIgnoreCase(IdempotencyFilter.STORE_HEADER));
    }

    @Test
    void a429IsNotStoredByDefaultSoTheRetryRunsTheHandlerAgain() throws Exception {
        String key = fresh("limited");
        String item = fresh("limited-item");

        HttpResponse<String> limited = send(post("/limits/rate-limited", key, itemJson(item)).build());
        HttpResponse<String> retried = send(post("/limits/rate-limited", key, itemJson(item)).build());
        HttpResponse<String> replay = send(post("/limits/rate-limited", key, itemJson(item)).build());

        assertThat(limited.statusCode()).isEqualTo(429);
        assertThat(limited.headers().firstValue("Retry-After")).hasValue("1");
        assertThat(retried.statusCode()).isEqualTo(201);
        assertThat(replayed(retried)).isFalse();
        assertThat(retried.headers().firstValue("X-Run")).isNotEqualTo(limited.headers().firstValue("X-Run"));
        assertThat(replayed(replay)).isTrue();
        assertThat(app.effects().count(item)).isEqualTo(2);
    }

    @Test
    void anEndpointsNotStoredOverridesTheGlobalPolicy() throws Exception {
        String key = fresh("limited-stored");
        String item = fresh("limited-stored-item");

        HttpResponse<String> limited = send(post("/limits/rate-limited-stored", key, itemJson(item)).build());
        HttpResponse<String> retried = send(post("/limits/rate-limited-stored", key, itemJson(item)).build());

        assertThat(limited.statusCode()).isEqualTo(429);
        assertThat(retried.statusCode()).as("notStored = \"5xx\" stores a 429").isEqualTo(429);
        assertThat(replayed(retried)).isTrue();
        assertThat(retried.body()).isEqualTo(limited.body());
        assertThat(app.effects().count(item)).isEqualTo(1);
    }

    @Test
    void aHandlersIdempotentStoreNoIsNotStoredAndNeverReachesTheClient() throws Exception {
        String key = fresh("accepted");
        String item = fresh("accepted-item");

        HttpResponse<String> accepted = send(post("/limits/accepted", key, itemJson(item)).build());
        HttpResponse<String> created = send(post("/limits/accepted", key, itemJson(item)).build());
        HttpResponse<String> replay = send(post("/limits/accepted", key, itemJson(item)).build());

        assertThat(accepted.statusCode()).isEqualTo(202);
        assertThat(accepted.headers().firstValue("X-Run")).isPresent();
        assertThat(hasStoreHeader(accepted)).as("the marker is taken out").isFalse();
        assertThat(created.statusCode()).as("not stored: the retry ran again").isEqualTo(201);
        assertThat(replayed(created)).isFalse();
        assertThat(replayed(replay)).isTrue();
        assertThat(hasStoreHeader(replay)).isFalse();
        assertThat(app.effects().count(item)).isEqualTo(2);
    }

    @Test
    void aTransactionalEndpointRollsBackAResponseItDeclines() throws Exception {
        String key = fresh("tx-accepted");
        String item = fresh("tx-accepted-item");

        HttpResponse<String> accepted = send(post("/limits/tx-accepted", key, itemJson(item)).build());
        int rowsAfterAccepted = app.orderRows(item);
        HttpResponse<String> created = send(post("/limits/tx-accepted", key, itemJson(item)).build());
        HttpResponse<String> replay = send(post("/limits/tx-accepted", key, itemJson(item)).build());

        assertThat(accepted.statusCode()).isEqualTo(202);
        assertThat(hasStoreHeader(accepted)).isFalse();
        assertThat(rowsAfterAccepted).as("rolled back with the claim").isZero();
        assertThat(created.statusCode()).isEqualTo(201);
        assertThat(replayed(replay)).isTrue();
        assertThat(app.orderRows(item)).isEqualTo(1);
        assertThat(app.effects().count(item)).isEqualTo(2);
    }
}
