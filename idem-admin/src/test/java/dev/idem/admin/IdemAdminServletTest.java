package dev.idem.admin;

import static dev.idem.admin.AdminServer.operator;
import static dev.idem.admin.AdminServer.someoneElse;
import static dev.idem.admin.AdminServer.with;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.Fingerprint;
import dev.idem.IdempotencyKey;
import dev.idem.LeaseLostException;
import dev.idem.Scope;
import dev.idem.StoredResponse;
import dev.idem.Sweeper;
import dev.idem.inbox.Inbox;
import dev.idem.inbox.InboxHandler;
import dev.idem.inbox.InboxMessage;
import dev.idem.inbox.InboxOutcome;
import dev.idem.jdbc.DurabilityCheck;
import dev.idem.jdbc.JdbcIdempotencyStore;
import dev.idem.outbox.Outbox;
import dev.idem.spi.ClaimOutcome;
import dev.idem.spi.ClaimRequest;
import dev.idem.spi.RecordKey;
import dev.idem.spi.RecordState;
import dev.idem.testing.RealServices;
import dev.idem.testing.TestDatabase;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** The admin servlet over a real PostgreSQL store, inbox and outbox, on Jetty. */
class IdemAdminServletTest {
    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final String CONSUMER = "payments";

    private TestDatabase db;
    private JdbcIdempotencyStore store;
    private Inbox inbox;
    private Outbox outbox;
    private Sweeper sweeper;
    private final List<String> actions = new CopyOnWriteArrayList<>();
    private AdminServer server;
    private final Scope scope = Scope.of("alice", "POST /payments");

    /** The consumer's handler: one ledger row per message it processes. */
    private final InboxHandler ledger = (c, m) -> {
        try (var ps = c.prepareStatement("INSERT INTO ledger (message_id) VALUES (?)")) {
            ps.setString(1, m.id());
            ps.executeUpdate();
        }
    };

    @BeforeEach
    void start() throws Exception {
        db = RealServices.postgres();
        store = JdbcIdempotencyStore.builder(db.dataSource()).durabilityCheck(DurabilityCheck.WARN).build();
        store.migrate();
        inbox = Inbox.builder(store).maxAttempts(1).build();
        inbox.migrate();
        outbox = Outbox.builder(store).build();
        outbox.migrate();
        execute("CREATE TABLE ledger (message_id text PRIMARY KEY)");
        sweeper = Sweeper.builder(store).name("records").build();
        server = serve(b -> b);
    }

    private AdminServer serve(UnaryOperator<IdemAdminServlet.Builder> settings) throws Exception {
        IdemAdmin admin = IdemAdmin.builder().store(store).durability(store::durabilityFindings)
                .consumer(new QuarantinedConsumer(CONSUMER, inbox.quarantine(), ledger))
                .outbox("orders", outbox).sweeper(sweeper)
                .listener((action, actor, outcome) -> actions.add(action + " " + actor + " " + outcome))
                .build();
        return AdminServer.start(settings.apply(IdemAdminServlet.builder(admin).role("IDEM_ADMIN")).build());
    }

    @AfterEach
    void stop() throws Exception {
        if (server != null) {
            server.close();
        }
        sweeper.close();
        db.close();
    }

    // ---- reads -------------------------------------------------------------------------------

    @Test
    @DisplayName("every read needs the role: 401 without a principal, 403 without the role")
    void readsNeedTheRole() throws Exception {
        assertThat(server.get("api/records/stuck").statusCode()).isEqualTo(401);
        HttpResponse<String> forbidden = server.get("api/records/stuck", someoneElse());
        assertThat(forbidden.statusCode()).isEqualTo(403);
        assertThat(forbidden.headers().firstValue("Content-Type")).hasValueSatisfying(t -> assertThat(t).startsWith("application/problem+json"));
        assertThat(server.get("api/store", someoneElse()).statusCode()).isEqualTo(403);
        assertThat(server.get("api/records/stuck", operator()).statusCode()).isEqualTo(200);
    }

    @Test
    @DisplayName("a record's lookup shows its metadata and the response's status and size, never the body or the fingerprint")
    void lookupShowsMetadataOnly() throws Exception {
        RecordKey id = key("done");
        ClaimOutcome.Acquired owner = claim(id, Duration.ofMinutes(5));
        store.complete(id, owner.token(), StoredResponse.of(201, Map.of("X-Card", List.of("4111-secret")),
                "secret-body".getBytes(StandardCharsets.UTF_8)), Duration.ofHours(1));

        HttpResponse<String> answer = server.get(recordPath(id), operator());
        assertThat(answer.statusCode()).isEqualTo(200);
        JsonNode record = JSON.readTree(answer.body()).get("record");
        assertThat(record.get("state").asString()).isEqualTo("COMPLETED");
        assertThat(record.get("token").asLong()).isEqualTo(owner.token());
        assertThat(record.get("responseStatus").asInt()).isEqualTo(201);
        assertThat(record.get("responseBytes").asInt()).isEqualTo(11);
        assertThat(answer.body()).doesNotContain("secret").doesNotContain(Fingerprint.builder().part("body", "a").build().value());
        assertThat(server.get(recordPath(key("absent")), operator()).statusCode()).isEqualTo(404);
    }

    @Test
    @DisplayName("stuck lists the records past their lease with the oldest in progress; the outbox, sweepers and store answer")
    void stuckOutboxSweepersAndStore() throws Exception {
        RecordKey stuck = key("stuck");
        claim(stuck, Duration.ofMillis(200));
        claim(key("running"), Duration.ofMinutes(5));
        Thread.sleep(350);
        try (Connection c = db.dataSource().getConnection()) {
            c.setAutoCommit(false);
            outbox.append(c, "order", "o-1", "Placed", "secret-payload".getBytes(StandardCharsets.UTF_8));
            c.commit();
        }
        sweeper.sweepOnce();

        JsonNode list = JSON.readTree(server.get("api/records/stuck?limit=10", operator()).body());
        assertThat(list.get("expiredLeases")).hasSize(1);
        assertThat(list.get("expiredLeases").get(0).get("key").asString()).isEqualTo("stuck");
        assertThat(list.get("expiredLeases").get(0).get("leaseExpired").asBoolean()).isTrue();
        assertThat(list.get("oldestInProgress").get("key").asString()).isEqualTo("stuck");

        HttpResponse<String> outboxAnswer = server.get("api/outbox", operator());
        JsonNode orders = JSON.readTree(outboxAnswer.body()).get("outboxes").get(0);
        assertThat(orders.get("name").asString()).isEqualTo("orders");
        assertThat(orders.get("pending").asLong()).isEqualTo(1);
        assertThat(orders.get("destinations").get(0).get("aggregateType").asString()).isEqualTo("order");
        assertThat(outboxAnswer.body()).doesNotContain("secret-payload");

        JsonNode sweepers = JSON.readTree(server.get("api/sweepers", operator()).body()).get("sweepers");
        assertThat(sweepers.get(0).get("name").asString()).isEqualTo("records");
        assertThat(sweepers.get(0).get("lastRun").isNull()).isFalse();

        JsonNode storeAnswer = JSON.readTree(server.get("api/store", operator()).body());
        assertThat(storeAnswer.get("healthy").asBoolean()).isTrue();
        assertThat(storeAnswer.get("administration").asBoolean()).isTrue();
        assertThat(storeAnswer.get("durabilityFindings").isArray()).isTrue();
        assertThat(JSON.readTree(server.get("api/overview", operator()).body()).get("inbox").get(0).get("consumer").asString())
                .isEqualTo(CONSUMER);
    }

    // ---- release -----------------------------------------------------------------------------

    @Test
    @DisplayName("release: a record past its lease is released; a live lease is refused without force; forced, the old owner's complete fails")
    void releaseIsFenced() throws Exception {
        RecordKey stuck = key("stuck");
        ClaimOutcome.Acquired crashed = claim(stuck, Duration.ofMillis(200));
        Thread.sleep(350);
        JsonNode released = JSON.readTree(release(stuck, crashed.token(), false, operator()).body());
        assertThat(released.get("result").asString()).isEqualTo("RELEASED");
        assertThat(store.find(stuck)).isEmpty();

        RecordKey live = key("live");
        ClaimOutcome.Acquired owner = claim(live, Duration.ofMinutes(5));
        assertThat(JSON.readTree(release(live, owner.token(), false, operator()).body()).get("result").asString()).isEqualTo("LEASE_LIVE");
        assertThat(store.find(live).orElseThrow().token()).isEqualTo(owner.token());
        assertThat(JSON.readTree(release(live, owner.token(), true, operator()).body()).get("result").asString()).isEqualTo("RELEASED");
        assertThatThrownBy(() -> store.complete(live, owner.token(), StoredResponse.of(200, Map.of(), new byte[0]), Duration.ofHours(1)))
                .isInstanceOf(LeaseLostException.class);
        assertThat(actions).contains("release olga RELEASED", "release olga LEASE_LIVE");
    }

    @Test
    @DisplayName("release unauthorised (no principal, no role, read-only, not JSON, cross-site) is refused, counted, and changes nothing")
    void unauthorisedReleaseChangesNothing() throws Exception {
        RecordKey id = key("stuck");
        ClaimOutcome.Acquired crashed = claim(id, Duration.ofMillis(200));
        Thread.sleep(350);
        String body = releaseBody(id, crashed.token(), true);

        assertThat(server.post("api/records/release", "application/json", body).statusCode()).isEqualTo(401);
        assertThat(server.post("api/records/release", "application/json", body, someoneElse()).statusCode()).isEqualTo(403);
        assertThat(server.post("api/records/release", "text/plain", body, operator()).statusCode()).isEqualTo(415);
        assertThat(server.post("api/records/release", "application/x-www-form-urlencoded", body, operator()).statusCode()).isEqualTo(415);
        assertThat(server.post("api/records/release", "application/json", body, with(operator(), "Origin", "https://evil.example"))
                .statusCode()).isEqualTo(403);
        assertThat(server.post("api/records/release", "application/json", body, with(operator(), "Sec-Fetch-Site", "cross-site"))
                .statusCode()).isEqualTo(403);
        assertStillHeld(id, crashed.token());

        server.close();
        server = serve(b -> b.readOnly(true));
        HttpResponse<String> readOnly = server.post("api/records/release", "application/json", body, operator());
        assertThat(readOnly.statusCode()).isEqualTo(403);
        assertThat(readOnly.body()).contains("read-only");
        assertStillHeld(id, crashed.token());
        assertThat(server.get("api/records/stuck", operator()).statusCode()).as("reads still answer").isEqualTo(200);
        assertThat(actions).filteredOn(a -> a.startsWith("release") && a.endsWith("refused")).hasSize(7);
        assertThat(actions).noneMatch(a -> a.endsWith("RELEASED"));
    }

    // ---- inbox -------------------------------------------------------------------------------

    @Test
    @DisplayName("inbox: the quarantine is listed without payloads; a replay processes the message once; replay all; drop")
    void quarantineReplayAndDrop() throws Exception {
        quarantine("m-1");
        quarantine("m-2");
        quarantine("m-3");
        HttpResponse<String> listed = server.get("api/inbox?consumer=" + CONSUMER, operator());
        JsonNode messages = JSON.readTree(listed.body()).get("quarantined");
        assertThat(messages).hasSize(3);
        assertThat(messages.get(0).get("errorClass").asString()).isEqualTo(IllegalStateException.class.getName());
        assertThat(listed.body()).doesNotContain("secret");

        JsonNode replayed = JSON.readTree(post("api/inbox/replay", Map.of("consumer", CONSUMER, "messageId", "m-1"), operator()).body());
        assertThat(replayed.get("results").get(0).get("status").asString()).isEqualTo("PROCESSED");
        JsonNode again = JSON.readTree(post("api/inbox/replay", Map.of("consumer", CONSUMER, "messageId", "m-1"), operator()).body());
        assertThat(again.get("results").get(0).get("status").asString()).isEqualTo("DUPLICATE");
        assertThat(ledgerRows()).containsExactly("m-1");

        assertThat(JSON.readTree(post("api/inbox/drop", Map.of("consumer", CONSUMER, "messageId", "m-2"), operator()).body())
                .get("dropped").asBoolean()).isTrue();
        JsonNode all = JSON.readTree(post("api/inbox/replay", Map.of("consumer", CONSUMER, "all", true), operator()).body());
        assertThat(all.get("results")).hasSize(1);
        assertThat(ledgerRows()).containsExactly("m-1", "m-3");
        assertThat(inbox.quarantine().list(CONSUMER, 10)).isEmpty();
        assertThat(actions).contains("replay olga PROCESSED", "replay olga DUPLICATE", "drop olga DROPPED", "replay-all olga PROCESSED");
    }

    @Test
    @DisplayName("replay, replay all and drop unauthorised are refused and change nothing: the messages stay quarantined, nothing is processed")
    void unauthorisedInboxActionsChangeNothing() throws Exception {
        quarantine("m-1");
        Map<String, Object> one = Map.of("consumer", CONSUMER, "messageId", "m-1");
        Map<String, Object> all = Map.of("consumer", CONSUMER, "all", true);
        for (String[] who : List.of(new String[0], someoneElse())) {
            assertThat(post("api/inbox/replay", one, who).statusCode()).isIn(401, 403);
            assertThat(post("api/inbox/replay", all, who).statusCode()).isIn(401, 403);
            assertThat(post("api/inbox/drop", one, who).statusCode()).isIn(401, 403);
        }
        assertThat(server.post("api/inbox/replay", "text/plain", JSON.writeValueAsString(one), operator()).statusCode()).isEqualTo(415);
        assertThat(server.post("api/inbox/drop", "application/json", JSON.writeValueAsString(one),
                with(operator(), "Origin", "http://attacker.test")).statusCode()).isEqualTo(403);
        server.close();
        server = serve(b -> b.readOnly(true));
        assertThat(post("api/inbox/replay", one, operator()).statusCode()).isEqualTo(403);
        assertThat(post("api/inbox/replay", all, operator()).statusCode()).isEqualTo(403);
        assertThat(post("api/inbox/drop", one, operator()).statusCode()).isEqualTo(403);

        assertThat(inbox.quarantine().list(CONSUMER, 10)).extracting(q -> q.messageId()).containsExactly("m-1");
        assertThat(ledgerRows()).isEmpty();
        assertThat(actions).allMatch(a -> a.endsWith("refused")).hasSize(11);
    }

    // ---- console -------------------------------------------------------------------------------

    @Test
    @DisplayName("the console is off by default; on, its page, script and style are served from the jar with a strict policy, to the role only")
    void consoleIsOffByDefault() throws Exception {
        assertThat(server.get("", operator()).statusCode()).isEqualTo(404);
        server.close();
        server = serve(b -> b.console(true));
        HttpResponse<String> page = server.get("", operator());
        assertThat(page.statusCode()).isEqualTo(200);
        assertThat(page.body()).contains("<title>idem console</title>").doesNotContain("http://").doesNotContain("https://");
        assertThat(page.headers().firstValue("Content-Security-Policy")).hasValueSatisfying(csp -> assertThat(csp).contains("default-src 'self'"));
        assertThat(server.get("console.js", operator()).body()).contains("api/records/release");
        assertThat(server.get("console.css", operator()).statusCode()).isEqualTo(200);
        assertThat(server.get("", someoneElse()).statusCode()).isEqualTo(403);
    }

    // ---- helpers -------------------------------------------------------------------------------

    private RecordKey key(String name) {
        return new RecordKey(scope, IdempotencyKey.of(name));
    }

    private ClaimOutcome.Acquired claim(RecordKey id, Duration lease) {
        return (ClaimOutcome.Acquired) store.claim(new ClaimRequest(id, Fingerprint.builder().part("body", "a").build(), lease,
                Duration.ofHours(1)));
    }

    private String recordPath(RecordKey id) {
        return "api/records?scope=" + java.net.URLEncoder.encode(id.scope().value(), StandardCharsets.UTF_8) + "&key=" + id.key().value();
    }

    private static String releaseBody(RecordKey id, long token, boolean force) {
        return JSON.writeValueAsString(Map.of("scope", id.scope().value(), "key", id.key().value(), "token", String.valueOf(token),
                "force", force));
    }

    private HttpResponse<String> release(RecordKey id, long token, boolean force, String... who) throws Exception {
        HttpResponse<String> r = server.post("api/records/release", "application/json", releaseBody(id, token, force), who);
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        return r;
    }

    private HttpResponse<String> post(String path, Map<String, Object> body, String... who) throws Exception {
        return server.post(path, "application/json", JSON.writeValueAsString(body), who);
    }

    private void assertStillHeld(RecordKey id, long token) {
        var record = store.find(id).orElseThrow();
        assertThat(record.state()).isEqualTo(RecordState.IN_PROGRESS);
        assertThat(record.token()).isEqualTo(token);
    }

    private void quarantine(String messageId) {
        InboxOutcome outcome = inbox.process(CONSUMER, InboxMessage.of(messageId, ("secret-" + UUID.randomUUID()).getBytes(StandardCharsets.UTF_8),
                Map.of()), (c, m) -> {
                    throw new IllegalStateException("the ledger is closed");
                });
        assertThat(outcome.status()).isEqualTo(InboxOutcome.Status.QUARANTINED);
    }

    private List<String> ledgerRows() throws Exception {
        try (Connection c = db.dataSource().getConnection(); Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT message_id FROM ledger ORDER BY message_id")) {
            List<String> out = new java.util.ArrayList<>();
            while (rs.next()) {
                out.add(rs.getString(1));
            }
            return out;
        }
    }

    private void execute(String sql) throws Exception {
        try (Connection c = db.dataSource().getConnection(); Statement st = c.createStatement()) {
            st.execute(sql);
        }
    }
}
