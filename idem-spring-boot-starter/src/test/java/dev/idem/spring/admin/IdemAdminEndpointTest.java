package dev.idem.spring.admin;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.Fingerprint;
import dev.idem.IdempotencyKey;
import dev.idem.Scope;
import dev.idem.inbox.Inbox;
import dev.idem.inbox.InboxMessage;
import dev.idem.inbox.InboxOutcome;
import dev.idem.jdbc.JdbcIdempotencyStore;
import dev.idem.spi.ClaimOutcome;
import dev.idem.spi.ClaimRequest;
import dev.idem.spi.RecordKey;
import dev.idem.spi.RecordState;
import dev.idem.spring.internal.admin.MicrometerAdminListener;
import dev.idem.testing.RealServices;
import dev.idem.testing.TestDatabase;
import io.micrometer.core.instrument.MeterRegistry;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringApplication;
import org.springframework.context.ConfigurableApplicationContext;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The actuator endpoint {@code idem} and the console servlet in a running application on PostgreSQL:
 * reads, the role every action needs, read-only mode, each action refused without changing anything,
 * and the actions counted.
 */
class IdemAdminEndpointTest {
    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final String[] OPERATOR = {"X-Test-User", "olga", "X-Test-Roles", "IDEM_ADMIN"};
    private static final String[] SOMEONE = {"X-Test-User", "mallory", "X-Test-Roles", "USER"};

    private final HttpClient http = HttpClient.newHttpClient();
    private TestDatabase db;
    private ConfigurableApplicationContext app;
    private URI base;
    private final Scope scope = Scope.of("alice", "POST /payments");

    private void start(String... properties) throws Exception {
        db = RealServices.postgres();
        try (Connection c = db.dataSource().getConnection(); Statement st = c.createStatement()) {
            st.execute("CREATE TABLE ledger (message_id text PRIMARY KEY)");
        }
        List<String> args = new ArrayList<>(List.of("--server.port=0", "--server.address=127.0.0.1",
                "--management.endpoints.web.exposure.include=idem", "--idem.sweeper.enabled=false", "--idem.durability-check=warn",
                "--idem.inbox.max-attempts=1", "--spring.main.banner-mode=off"));
        for (String p : properties) {
            args.add("--" + p);
        }
        SpringApplication application = new SpringApplication(AdminTestApplication.class);
        DataSource dataSource = db.dataSource();
        application.addInitializers(context -> context.getBeanFactory().registerSingleton("dataSource", dataSource));
        app = application.run(args.toArray(String[]::new));
        base = URI.create("http://127.0.0.1:" + app.getEnvironment().getProperty("local.server.port") + "/");
    }

    @AfterEach
    void stop() {
        if (app != null) {
            app.close();
            app = null;
        }
        if (db != null) {
            db.close();
            db = null;
        }
    }

    @Test
    @DisplayName("the endpoint's reads: the overview, the records stuck past their lease, one record, the outbox, the store")
    void reads() throws Exception {
        start();
        RecordKey stuck = claimAndAbandon("stuck");
        JsonNode overview = JSON.readTree(get("actuator/idem").body());
        assertThat(overview.get("store").get("healthy").asBoolean()).isTrue();
        assertThat(overview.get("inbox").get(0).get("consumer").asString()).isEqualTo(AdminTestApplication.CONSUMER);
        assertThat(overview.get("outbox").get(0).get("name").asString()).isEqualTo("orders");
        JsonNode list = JSON.readTree(get("actuator/idem/stuck").body());
        assertThat(list.get("expiredLeases").get(0).get("key").asString()).isEqualTo("stuck");
        HttpResponse<String> one = get("actuator/idem/records?scope=" + java.net.URLEncoder.encode(stuck.scope().value(),
                StandardCharsets.UTF_8) + "&key=stuck");
        assertThat(one.statusCode()).isEqualTo(200);
        assertThat(JSON.readTree(one.body()).get("record").get("state").asString()).isEqualTo("IN_PROGRESS");
        assertThat(get("actuator/idem/records?scope=" + java.net.URLEncoder.encode(stuck.scope().value(), StandardCharsets.UTF_8)
                + "&key=absent").statusCode()).isEqualTo(404);
    }

    @Test
    @DisplayName("the operators' gauges: the records past their lease and the outbox's backlog, read from the store")
    void operatorGauges() throws Exception {
        start();
        MeterRegistry registry = app.getBean(MeterRegistry.class);
        assertThat(registry.get("idem.records.past.lease").gauge().value()).as("nothing stuck yet").isZero();
        assertThat(registry.get("idem.outbox.pending").tag("outbox", "orders").gauge().value()).isZero();
        assertThat(registry.get("idem.outbox.oldest.age").tag("outbox", "orders").gauge().value()).isZero();

        // A fresh application, so that no reading is reused: a key abandoned past its lease and an event not sent.
        stop();
        start();
        claimAndAbandon("stuck");
        try (Connection c = db.dataSource().getConnection()) {
            c.setAutoCommit(false);
            app.getBean(dev.idem.outbox.Outbox.class).append(c, "payment", "p-1", "paid", "{}".getBytes(StandardCharsets.UTF_8));
            c.commit();
        }
        Thread.sleep(1100);
        registry = app.getBean(MeterRegistry.class);
        assertThat(registry.get("idem.records.past.lease").gauge().value()).isEqualTo(1.0);
        assertThat(registry.get("idem.outbox.pending").tag("outbox", "orders").gauge().value()).isEqualTo(1.0);
        assertThat(registry.get("idem.outbox.oldest.age").tag("outbox", "orders").gauge().value()).isGreaterThanOrEqualTo(1.0);
    }

    @Test
    @DisplayName("release through the endpoint: refused without a principal, without the role or as a form, nothing changed; with the role released and counted")
    void releaseNeedsTheRole() throws Exception {
        start();
        RecordKey stuck = claimAndAbandon("stuck");
        long token = store().find(stuck).orElseThrow().token();
        String body = JSON.writeValueAsString(Map.of("scope", stuck.scope().value(), "key", "stuck", "token", String.valueOf(token)));

        assertThat(post("actuator/idem/release", "application/json", body).statusCode()).isEqualTo(401);
        assertThat(post("actuator/idem/release", "application/json", body, SOMEONE).statusCode()).isEqualTo(403);
        assertThat(post("actuator/idem/release", "application/x-www-form-urlencoded", "scope=x&key=stuck&token=" + token, OPERATOR)
                .statusCode()).isEqualTo(415);
        assertThat(store().find(stuck).orElseThrow().token()).as("nothing changed").isEqualTo(token);
        assertThat(store().find(stuck).orElseThrow().state()).isEqualTo(RecordState.IN_PROGRESS);
        assertThat(count("release", "refused")).isEqualTo(2);

        HttpResponse<String> released = post("actuator/idem/release", "application/json", body, OPERATOR);
        assertThat(released.statusCode()).isEqualTo(200);
        assertThat(JSON.readTree(released.body()).get("result").asString()).isEqualTo("RELEASED");
        assertThat(store().find(stuck)).isEmpty();
        assertThat(count("release", "RELEASED")).isEqualTo(1);
    }

    @Test
    @DisplayName("replay and drop through the endpoint: refused without the role, nothing changed; with it, the message is processed once")
    void replayAndDropNeedTheRole() throws Exception {
        start();
        quarantine("m-1");
        quarantine("m-2");
        String replay = JSON.writeValueAsString(Map.of("consumer", AdminTestApplication.CONSUMER, "messageId", "m-1"));
        String replayAll = JSON.writeValueAsString(Map.of("consumer", AdminTestApplication.CONSUMER, "all", true));
        String drop = JSON.writeValueAsString(Map.of("consumer", AdminTestApplication.CONSUMER, "messageId", "m-2"));
        for (String[] who : List.of(new String[0], SOMEONE)) {
            assertThat(post("actuator/idem/replay", "application/json", replay, who).statusCode()).isIn(401, 403);
            assertThat(post("actuator/idem/replay", "application/json", replayAll, who).statusCode()).isIn(401, 403);
            assertThat(post("actuator/idem/drop", "application/json", drop, who).statusCode()).isIn(401, 403);
        }
        assertThat(app.getBean(Inbox.class).quarantine().list(AdminTestApplication.CONSUMER, 10)).hasSize(2);
        assertThat(ledger()).isEmpty();

        assertThat(post("actuator/idem/replay", "application/json", replay, OPERATOR).body()).contains("PROCESSED");
        assertThat(post("actuator/idem/replay", "application/json", replay, OPERATOR).body()).contains("DUPLICATE");
        assertThat(post("actuator/idem/drop", "application/json", drop, OPERATOR).body()).contains("\"dropped\":true");
        assertThat(ledger()).containsExactly("m-1");
        assertThat(count("replay", "refused")).isEqualTo(4);
        assertThat(count("drop", "refused")).isEqualTo(2);
    }

    @Test
    @DisplayName("read-only: an operator's release is refused and nothing changes; reads still answer")
    void readOnlyRefusesActions() throws Exception {
        start("idem.admin.read-only=true");
        RecordKey stuck = claimAndAbandon("stuck");
        long token = store().find(stuck).orElseThrow().token();
        String body = JSON.writeValueAsString(Map.of("scope", stuck.scope().value(), "key", "stuck", "token", String.valueOf(token)));
        assertThat(post("actuator/idem/release", "application/json", body, OPERATOR).statusCode()).isEqualTo(403);
        assertThat(store().find(stuck).orElseThrow().token()).isEqualTo(token);
        assertThat(get("actuator/idem/stuck").statusCode()).isEqualTo(200);
        assertThat(count("release", "refused")).isEqualTo(1);
    }

    @Test
    @DisplayName("the console is off by default; on, it answers the role only")
    void consoleIsOffByDefault() throws Exception {
        start();
        assertThat(get("idem-admin/", OPERATOR).statusCode()).isEqualTo(404);
        app.close();
        db.close();
        start("idem.admin.console.enabled=true");
        assertThat(get("idem-admin/", OPERATOR).statusCode()).isEqualTo(200);
        assertThat(get("idem-admin/", SOMEONE).statusCode()).isEqualTo(403);
        assertThat(get("idem-admin/api/records/stuck").statusCode()).isEqualTo(401);
    }

    // ---- helpers ---------------------------------------------------------------------------------

    private JdbcIdempotencyStore store() {
        return app.getBean(JdbcIdempotencyStore.class);
    }

    private RecordKey claimAndAbandon(String key) throws InterruptedException {
        RecordKey id = new RecordKey(scope, IdempotencyKey.of(key));
        assertThat(store().claim(new ClaimRequest(id, Fingerprint.builder().part("body", "a").build(), Duration.ofMillis(200),
                Duration.ofHours(1)))).isInstanceOf(ClaimOutcome.Acquired.class);
        Thread.sleep(350);
        return id;
    }

    private void quarantine(String messageId) {
        InboxOutcome outcome = app.getBean(Inbox.class).process(AdminTestApplication.CONSUMER, InboxMessage.of(messageId), (c, m) -> {
            throw new IllegalStateException("the ledger is closed");
        });
        assertThat(outcome.status()).isEqualTo(InboxOutcome.Status.QUARANTINED);
    }

    private double count(String action, String outcome) {
        var counter = app.getBean(MeterRegistry.class).find(MicrometerAdminListener.ACTIONS).tag("action", action).tag("outcome", outcome)
                .counter();
        return counter == null ? 0 : counter.count();
    }

    private List<String> ledger() throws Exception {
        try (Connection c = db.dataSource().getConnection(); Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT message_id FROM ledger ORDER BY message_id")) {
            List<String> out = new ArrayList<>();
            while (rs.next()) {
                out.add(rs.getString(1));
            }
            return out;
        }
    }

    private HttpResponse<String> get(String path, String... headers) throws Exception {
        HttpRequest.Builder r = HttpRequest.newBuilder(base.resolve(path)).GET();
        if (headers.length > 0) {
            r.headers(headers);
        }
        return http.send(r.build(), HttpResponse.BodyHandlers.ofString());
    }

    private HttpResponse<String> post(String path, String contentType, String body, String... headers) throws Exception {
        HttpRequest.Builder r = HttpRequest.newBuilder(base.resolve(path)).header("Content-Type", contentType)
                .POST(HttpRequest.BodyPublishers.ofString(body));
        if (headers.length > 0) {
            r.headers(headers);
        }
        return http.send(r.build(), HttpResponse.BodyHandlers.ofString());
    }
}
