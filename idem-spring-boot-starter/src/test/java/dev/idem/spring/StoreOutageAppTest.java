package dev.idem.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.spring.app.Outage;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The application's database goes away ({@code orders.outage-switch}: its DataSource refuses
 * connections while the {@link Outage} is on). The client gets idem's 503 {@code store-unavailable}
 * problem with {@code Retry-After} — not Spring's error page — whether the store fails at the claim,
 * in a transactional endpoint's transaction, or at a checkpoint inside a controller; once the database
 * is back, a retry with the same key runs the handler once.
 */
@ParameterizedClass
@EnumSource(Backend.class)
class StoreOutageAppTest {
    private final Backend backend;
    private TestApp app;

    StoreOutageAppTest(Backend backend) {
        this.backend = backend;
    }

    @AfterEach
    void stop() {
        if (app != null) {
            app.close();
        }
    }

    private TestApp start(String... more) {
        java.util.List<String> args = new java.util.ArrayList<>(java.util.List.of("--orders.outage-switch=true",
                // The outage's stack traces are expected; the filter logs each as a warning.
                "--logging.level.dev.idem.servlet=ERROR"));
        args.addAll(java.util.List.of(more));
        app = TestApp.start(backend, args.toArray(String[]::new));
        return app;
    }

    private HttpResponse<String> post(String path, String key, String item) throws Exception {
        return AppTest.send(java.net.http.HttpRequest.newBuilder(app.uri(path))
                .timeout(java.time.Duration.ofSeconds(90))
                .header("Content-Type", AppTest.JSON)
                .header(AppTest.KEY_HEADER, key)
                .POST(java.net.http.HttpRequest.BodyPublishers.ofString(AppTest.itemJson(item))).build());
    }

    private static void assertStoreUnavailable(HttpResponse<String> response, String... secrets) {
        AppTest.assertProblem(response, 503, "store-unavailable", secrets);
        assertThat(response.headers().firstValue("Retry-After")).hasValue("2");
        assertThat(response.body()).as("idem's problem, not Spring's error page").doesNotContain("timestamp", "\"path\"");
        assertThat(response.headers().firstValue("Location")).isEmpty();
        assertThat(response.headers().firstValue("Set-Cookie")).isEmpty();
    }

    @Test
    void anOutageAtTheClaimIs503ProblemAndTheRetryAfterItRunsTheHandlerOnce() throws Exception {
        start();
        Outage outage = app.context.getBean(Outage.class);
        String key = AppTest.fresh("outage-claim");
        String item = AppTest.fresh("outage-claim-item");
        String txKey = AppTest.fresh("outage-tx");
        String txItem = AppTest.fresh("outage-tx-item");

        outage.begin();
        HttpResponse<String> plain = post("/orders", key, item);
        HttpResponse<String> transactional = post("/tx/orders", txKey, txItem);
        outage.end();
        HttpResponse<String> retried = post("/orders", key, item);
        HttpResponse<String> replay = post("/orders", key, item);
        HttpResponse<String> txRetried = post("/tx/orders", txKey, txItem);

        assertStoreUnavailable(plain, key, item);
        assertStoreUnavailable(transactional, txKey, txItem);
        assertThat(retried.statusCode()).isEqualTo(201);
        assertThat(AppTest.replayed(retried)).isFalse();
        assertThat(AppTest.replayed(replay)).isTrue();
        assertThat(app.effects().count(item)).as("nothing ran during the outage, once after").isEqualTo(1);
        assertThat(txRetried.statusCode()).isEqualTo(201);
        assertThat(app.orderRows(txItem)).isEqualTo(1);
        assertThat(app.effects().count(txItem)).isEqualTo(1);
    }

    @Test
    void anOutageAtACheckpointInsideTheControllerIs503ProblemAndTheKeyStaysInProgress() throws Exception {
        start();
        Outage outage = app.context.getBean(Outage.class);
        String key = AppTest.fresh("outage-phase");
        String item = AppTest.fresh("outage-phase-item");

        HttpResponse<String> failed = post("/outage/charge", key, item);
        outage.end();
        HttpResponse<String> early = post("/outage/charge", key, item);

        assertStoreUnavailable(failed, key, item);
        assertThat(app.effects().count(item)).isEqualTo(1);
        AppTest.assertProblem(early, 409, "key-in-use", key, item);
    }

    @Test
    void anApplicationsCatchAllExceptionHandlerDoesNotTurnABlipInto500() throws Exception {
        start("--orders.catch-all-advice=true");
        String key = AppTest.fresh("outage-advice");
        String item = AppTest.fresh("outage-advice-item");

        // The checkpoint fails, the application's catch-all answers it, and the key is given back at once.
        HttpResponse<String> failed = post("/outage/blip-charge", key, item);
        HttpResponse<String> retried = post("/outage/blip-charge", key, item);
        HttpResponse<String> replay = post("/outage/blip-charge", key, item);

        assertStoreUnavailable(failed, key, item);
        assertThat(failed.body()).as("idem's problem, not the application's catch-all 500").doesNotContain("unexpected");
        assertThat(retried.statusCode()).isEqualTo(200);
        assertThat(AppTest.replayed(replay)).isTrue();
    }
}
