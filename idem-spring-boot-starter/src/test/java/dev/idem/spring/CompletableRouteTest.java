package dev.idem.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.Completer;
import dev.idem.spi.RecordSummary;
import dev.idem.spi.StoreAdministration;
import dev.idem.spring.completion.CompletionApplication;
import dev.idem.spring.completion.PaymentsController;
import dev.idem.spring.internal.CompleterLifecycle;
import dev.idem.testing.Concurrently;
import dev.idem.testing.TestDatabase;
import dev.idem.jdbc.JdbcIdempotencyStore;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.Callable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.springframework.boot.SpringApplication;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * {@code @Idempotent(completable = true)} on a real Tomcat and a real store: the handler charges in a
 * phase and dies before answering, its client never retries, and the starter's completer — in this
 * instance or in another one sharing the store — finishes the record by running the stored request
 * through the DispatcherServlet; a late retry replays the handler's own 201.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class CompletableRouteTest {
    private static final HttpClient CLIENT = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    private TestDatabase db;
    private ConfigurableApplicationContext first;
    private ConfigurableApplicationContext second;

    abstract Backend backend();

    @BeforeAll
    void start() {
        db = backend().open();
        first = run();
        second = run();
    }

    private ConfigurableApplicationContext run() {
        return SpringApplication.run(CompletionApplication.class,
                "--server.port=0", "--server.address=127.0.0.1", "--spring.datasource.url=" + Backend.jdbcUrl(db),
                "--spring.main.banner-mode=off", "--logging.level.root=WARN", "--logging.level.org.apache.catalina.core=OFF",
                "--logging.level.dev.idem=OFF", "--idem.table-name=route_completer_keys",
                // The test polls itself (completeOnce), so the background polls never come.
                "--idem.completer.delay=1ms", "--idem.completer.poll-interval=1h", "--idem.completer.max-attempts=3");
    }

    @AfterAll
    void stop() {
        for (ConfigurableApplicationContext context : new ConfigurableApplicationContext[] {first, second}) {
            if (context != null) {
                context.close();
            }
        }
        if (db != null) {
            db.close();
        }
    }

    private static Completer completer(ConfigurableApplicationContext context) {
        return context.getBean(CompleterLifecycle.class).completer().orElseThrow();
    }

    private static URI uri(ConfigurableApplicationContext context, String path) {
        return URI.create("http://127.0.0.1:" + context.getEnvironment().getProperty("local.server.port") + path);
    }

    private static HttpResponse<String> post(ConfigurableApplicationContext context, String path, String key, String ref, boolean crash)
            throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(uri(context, path + "?note=caf%C3%A9%20au%20lait"))
                .timeout(Duration.ofSeconds(30))
                .header("Content-Type", "application/json").header("Accept", "application/json").header("Idempotency-Key", key)
                .POST(HttpRequest.BodyPublishers.ofString("{\"ref\":\"" + ref + "\",\"amount\":1200}", StandardCharsets.UTF_8));
        if (crash) {
            request.header(PaymentsController.CRASH_HEADER, "yes");
        }
        return CLIENT.send(request.build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
    }

    private int charges(String ref) throws Exception {
        try (Connection c = db.dataSource().getConnection();
             PreparedStatement ps = c.prepareStatement("SELECT count(*) FROM route_completer_charges WHERE ref = ?")) {
            ps.setString(1, ref);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getInt(1);
            }
        }
    }

    private RecordSummary abandoned(String key) {
        StoreAdministration admin = first.getBean(JdbcIdempotencyStore.class).administration().orElseThrow();
        return admin.expiredLeases(1000).stream().filter(summary -> summary.id().key().value().equals(key)).findFirst().orElseThrow();
    }

    private List<String> sightings(ConfigurableApplicationContext context, String ref) {
        return context.getBean(CompletionApplication.Sightings.class).all().stream().filter(s -> s.contains(ref)).toList();
    }

    @Test
    @DisplayName("the completer finishes an abandoned completable request inside the app: charged once, completed, the late retry replays the 201")
    void completerFinishesAnAbandonedRequest() throws Exception {
        String key = "k-" + UUID.randomUUID();
        String ref = "ref-" + UUID.randomUUID();

        assertThat(post(first, "/completable-payments", key, ref, true).statusCode()).isEqualTo(500);
        assertThat(abandoned(key).phasesDone()).containsExactly("idem:input", "charge");

        assertThat(completer(first).completeOnce()).isEqualTo(1);

        assertThat(charges(ref)).isEqualTo(1);
        List<String> seen = sightings(first, ref);
        assertThat(seen).hasSize(2);
        assertThat(seen.get(1)).as("the completer's request is the client's").isEqualTo(seen.get(0))
                .contains("POST /completable-payments?note=caf%C3%A9%20au%20lait note=café au lait accept=application/json"
                        + " type=application/json");
        HttpResponse<String> late = post(second, "/completable-payments", key, ref, false);
        assertThat(late.statusCode()).isEqualTo(201);
        assertThat(late.headers().firstValue("Idempotent-Replayed")).hasValue("true");
        assertThat(late.body()).contains("\"ref\":\"" + ref + "\"").contains("\"amount\":1200").contains("\"charge\":\"ch_");
        assertThat(late.headers().firstValue("Location")).hasValueSatisfying(location -> assertThat(location).startsWith("/completable-payments/ch_"));
        assertThat(charges(ref)).isEqualTo(1);
        assertThat(sightings(second, ref)).isEmpty();
    }

    @Test
    @DisplayName("two instances' completers racing over one abandoned record: it runs once")
    void twoCompletersRunARecordOnce() throws Exception {
        String key = "k-" + UUID.randomUUID();
        String ref = "ref-" + UUID.randomUUID();
        assertThat(post(first, "/completable-payments", key, ref, true).statusCode()).isEqualTo(500);

        List<Integer> completed = Concurrently.callAll(List.<Callable<Integer>>of(
                () -> completer(first).completeOnce(), () -> completer(second).completeOnce()));

        assertThat(completed.stream().mapToInt(Integer::intValue).sum()).isEqualTo(1);
        assertThat(charges(ref)).isEqualTo(1);
        assertThat(sightings(first, ref).size() + sightings(second, ref).size()).as("the live run and one completion").isEqualTo(2);
        HttpResponse<String> late = post(first, "/completable-payments", key, ref, false);
        assertThat(late.statusCode()).isEqualTo(201);
        assertThat(late.headers().firstValue("Idempotent-Replayed")).hasValue("true");
    }

    @Test
    @DisplayName("an abandoned record of a route that is not completable is left alone")
    void aPlainRouteIsLeftAlone() throws Exception {
        String key = "k-" + UUID.randomUUID();
        String ref = "ref-" + UUID.randomUUID();
        assertThat(post(first, "/plain-payments", key, ref, true).statusCode()).isEqualTo(500);

        completer(first).completeOnce();
        completer(second).completeOnce();

        assertThat(abandoned(key).phasesDone()).containsExactly("charge");
        assertThat(sightings(first, ref)).hasSize(1);
        assertThat(charges(ref)).isEqualTo(1);
    }
}
