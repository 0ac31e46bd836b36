package dev.idem.admin;

import dev.idem.IdempotencyKey;
import dev.idem.Scope;
import dev.idem.StoreException;
import dev.idem.Sweeper;
import dev.idem.spi.Arguments;
import dev.idem.spi.IdempotencyStore;
import dev.idem.spi.RecordKey;
import dev.idem.spi.RecordSummary;
import dev.idem.spi.StoreAdministration;
import dev.idem.spi.StoreAdministration.ReleaseResult;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * What an operator sees and does, over one store and any number of inbox consumers, outboxes and
 * sweepers: the records (one by scope and key, the ones stuck past their lease, the oldest in
 * progress) and their fenced release; the quarantined messages by consumer, their replay and drop;
 * the outboxes' backlog; the sweepers' runs; the store's health and durability settings. Every
 * answer is a JSON-ready tree of maps, lists, strings, numbers and booleans (times as ISO-8601
 * strings, durations in milliseconds), the one shape both {@link IdemAdminServlet} and the Spring
 * Boot actuator endpoint {@code idem} serve. See docs/operations.md.
 *
 * <p>It never shows a response body, a request's content or a credential. Quarantined payloads,
 * headers and error texts (the application's text, which may quote data) are shown only with
 * {@link Builder#showContent}. It does not authorise: its callers do (the servlet by a role, the
 * actuator endpoint by Spring Security), and refuse writes in read-only mode. Every action is logged
 * (logger {@code dev.idem.admin}) and reported to the {@link AdminListener}. Thread-safe.
 */
public final class IdemAdmin {
    private static final System.Logger LOG = System.getLogger("dev.idem.admin");
    /** Records listed by default and at most: a page an operator reads, not an export. */
    static final int DEFAULT_LIMIT = 50;

    private final IdempotencyStore store;
    private final List<InboxSection> consumers;
    private final List<OutboxSection> outboxes;
    private final List<Sweeper> sweepers;
    private final Supplier<List<String>> durability;
    private final boolean showContent;
    private final AdminListener listener;
    private final Clock clock;

    private IdemAdmin(Builder b) {
        this.store = b.store;
        this.consumers = List.copyOf(b.consumers);
        this.outboxes = List.copyOf(b.outboxes);
        this.sweepers = List.copyOf(b.sweepers);
        this.durability = b.durability;
        this.showContent = b.showContent;
        this.listener = b.listener;
        this.clock = b.clock;
    }

    public static Builder builder() {
        return new Builder();
    }

    /** Whether quarantined payloads, headers and error texts are shown. */
    public boolean showsContent() {
        return showContent;
    }

    // ---- reads -----------------------------------------------------------------------------------

    /** The store, the inbox consumers' quarantine sizes, the outboxes' backlogs and the sweepers, in one answer. */
    public Map<String, Object> overview() {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("store", store());
        List<Object> inbox = new ArrayList<>();
        for (InboxSection c : consumers) {
            inbox.add(c.summary());
        }
        out.put("inbox", inbox);
        out.put("outbox", outbox().get("outboxes"));
        out.put("sweepers", sweepers().get("sweepers"));
        return out;
    }

    /**
     * The record of {@code key} in {@code scope} (its stored form, {@link Scope#value()}).
     *
     * @throws NoSuchElementException   if it is absent, released or expired
     * @throws IllegalArgumentException if the scope or key is not valid
     */
    public Map<String, Object> record(String scope, String key) {
        RecordKey id = recordKey(scope, key);
        RecordSummary summary = administration().inspect(id)
                .orElseThrow(() -> new NoSuchElementException("no live record for this key in scope " + id.scope()));
        return Map.of("record", record(summary));
    }

    /** Up to {@code limit} (1–1000) records in progress past their lease, longest-expired first, and the oldest in progress. */
    public Map<String, Object> stuck(int limit) {
        Arguments.between("limit", limit, 1, StoreAdministration.MAX_LIST);
        StoreAdministration admin = administration();
        List<Object> expired = new ArrayList<>();
        for (RecordSummary s : admin.expiredLeases(limit)) {
            expired.add(record(s));
        }
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("expiredLeases", expired);
        out.put("oldestInProgress", admin.oldestInProgress().map(IdemAdmin::record).orElse(null));
        return out;
    }

    /** The quarantined messages of every consumer, up to {@code limit} each, oldest failure first. */
    public Map<String, Object> quarantine(int limit) {
        List<Object> out = new ArrayList<>();
        for (InboxSection c : consumers) {
            out.add(c.list(limit, showContent));
        }
        return Map.of("consumers", out);
    }

    /** The quarantined messages of {@code consumer}, up to {@code limit} (1–1000), oldest failure first. */
    public Map<String, Object> quarantine(String consumer, int limit) {
        return consumer(consumer).list(limit, showContent);
    }

    /** Every outbox's backlog: pending events, the oldest's age, per aggregate type, the failing rows. */
    public Map<String, Object> outbox() {
        List<Object> out = new ArrayList<>();
        for (OutboxSection o : outboxes) {
            out.add(o.backlog(showContent));
        }
        return Map.of("outboxes", out);
    }

    /** Every sweeper's last run, rows removed and lag. */
    public Map<String, Object> sweepers() {
        Instant now = clock.instant();
        List<Object> out = new ArrayList<>();
        for (Sweeper sweeper : sweepers) {
            Sweeper.Status s = sweeper.status();
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("name", s.name());
            m.put("running", sweeper.isRunning());
            m.put("removed", s.removed());
            m.put("lastRun", text(s.lastRun()));
            m.put("lastRunRemoved", s.lastRunRemoved());
            m.put("lastRunFailed", s.lastRunFailed());
            m.put("caughtUpAt", text(s.caughtUpAt()));
            m.put("lagMs", s.caughtUpAt() == null ? null : s.lag(now).toMillis());
            out.add(m);
        }
        return Map.of("sweepers", out);
    }

    /** The store: what it is, whether it answers (one read of the oldest record in progress) and its durability findings. */
    public Map<String, Object> store() {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("store", String.valueOf(store));
        Optional<StoreAdministration> administration = store.administration();
        out.put("administration", administration.isPresent());
        long started = System.nanoTime();
        try {
            if (administration.isPresent()) {
                out.put("oldestInProgress", administration.get().oldestInProgress().map(IdemAdmin::record).orElse(null));
            }
            out.put("healthy", true);
        } catch (StoreException e) {
            out.put("healthy", false);
            out.put("error", e.getMessage());
        }
        out.put("answeredInMs", Duration.ofNanos(System.nanoTime() - started).toMillis());
        if (durability != null) {
            try {
                out.put("durabilityFindings", durability.get());
            } catch (RuntimeException e) {
                out.put("durabilityFindings", null);
                out.put("durabilityError", e.getMessage());
            }
        }
        return out;
    }

    // ---- actions ---------------------------------------------------------------------------------

    /**
     * Releases a stuck record held under {@code token}: fenced (see {@link StoreAdministration#releaseStuck}).
     *
     * @return {@code result} ({@code RELEASED}, {@code LEASE_LIVE}, {@code TOKEN_CHANGED}, {@code NOT_IN_PROGRESS}) and {@code released}
     */
    public Map<String, Object> release(String actor, String scope, String key, long token, boolean force) {
        RecordKey id = recordKey(scope, key);
        ReleaseResult result = administration().releaseStuck(id, token, force);
        acted("release", actor, result.name(), id + " token " + token + (force ? " (forced)" : ""));
        return Map.of("result", result.name(), "released", result == ReleaseResult.RELEASED);
    }

    /** Replays one quarantined message of {@code consumer} with the consumer's handler. */
    public Map<String, Object> replay(String actor, String consumer, String messageId) {
        Map<String, Object> result = consumer(consumer).replay(messageId);
        acted("replay", actor, String.valueOf(result.get("status")), "consumer " + consumer);
        return Map.of("results", List.of(result));
    }

    /** Replays every quarantined message of {@code consumer} (up to 1000), oldest failure first. */
    public Map<String, Object> replayAll(String actor, String consumer) {
        List<Map<String, Object>> results = consumer(consumer).replayAll();
        long processed = results.stream().filter(r -> "PROCESSED".equals(r.get("status"))).count();
        // The outcome stays one of two words (a meter's tag); the counts go to the log.
        acted("replay-all", actor, processed == results.size() ? "PROCESSED" : "PARTIAL",
                "consumer " + consumer + " (" + processed + " of " + results.size() + " processed)");
        return Map.of("results", results);
    }

    /** Drops one quarantined message of {@code consumer}: it is not processed, and its later deliveries are duplicates. */
    public Map<String, Object> drop(String actor, String consumer, String messageId) {
        boolean dropped = consumer(consumer).drop(messageId);
        acted("drop", actor, dropped ? "DROPPED" : "NOT_QUARANTINED", "consumer " + consumer);
        return Map.of("dropped", dropped);
    }

    /** Reports an action its caller refused (unauthorised, read-only, not CSRF-safe): logged and counted like the others. */
    public void refused(String action, String actor, String why) {
        acted(action, actor, "refused", why);
    }

    private void acted(String action, String actor, String outcome, String what) {
        String who = actor == null || actor.isBlank() ? "anonymous" : actor;
        LOG.log(System.Logger.Level.INFO, "idem admin: " + who + " " + action + " " + what + ": " + outcome);
        try {
            listener.acted(action, who, outcome);
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "idem admin listener failed on " + action + "; ignored", e);
        }
    }

    // ---- helpers ---------------------------------------------------------------------------------

    private StoreAdministration administration() {
        return store.administration().orElseThrow(() -> new UnsupportedOperationException(
                "the store " + store + " offers no administration (its IdempotencyStore.administration() is empty)"));
    }

    private InboxSection consumer(String name) {
        for (InboxSection c : consumers) {
            if (c.name().equals(name)) {
                return c;
            }
        }
        throw new NoSuchElementException("no inbox consumer of that name is administered here");
    }

    private static RecordKey recordKey(String scope, String key) {
        if (scope == null || scope.isEmpty()) {
            throw new IllegalArgumentException("scope is missing");
        }
        if (key == null || key.isEmpty()) {
            throw new IllegalArgumentException("key is missing");
        }
        return new RecordKey(Scope.parse(scope), IdempotencyKey.of(key));
    }

    static Map<String, Object> record(RecordSummary s) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("scope", s.id().scope().value());
        m.put("key", s.id().key().value());
        m.put("state", s.state().name());
        m.put("token", s.token());
        m.put("attempt", s.attempt());
        m.put("leaseUntil", text(s.leaseUntil()));
        m.put("leaseExpired", s.leaseExpired());
        m.put("createdAt", s.createdAt().map(IdemAdmin::text).orElse(null));
        m.put("expiresAt", text(s.expiresAt()));
        m.put("phasesDone", s.phasesDone());
        m.put("responseStatus", s.responseStatus().isPresent() ? s.responseStatus().getAsInt() : null);
        m.put("responseBytes", s.responseBytes().isPresent() ? s.responseBytes().getAsLong() : null);
        m.put("asOf", text(s.asOf()));
        return m;
    }

    static String text(Instant instant) {
        return instant == null ? null : instant.toString();
    }

    /** Settings of an {@link IdemAdmin}. */
    public static final class Builder {
        private IdempotencyStore store;
        private final List<InboxSection> consumers = new ArrayList<>();
        private final List<OutboxSection> outboxes = new ArrayList<>();
        private final List<Sweeper> sweepers = new ArrayList<>();
        private Supplier<List<String>> durability;
        private boolean showContent;
        private AdminListener listener = AdminListener.NONE;
        private Clock clock = Clock.systemUTC();

        private Builder() {
        }

        /** The store whose records are shown; required. Its records are administered if it offers {@link IdempotencyStore#administration()}. */
        public Builder store(IdempotencyStore store) {
            this.store = Objects.requireNonNull(store, "store is null");
            return this;
        }

        /** An inbox consumer whose quarantine is shown, replayed and dropped. Names must be distinct. */
        public Builder consumer(QuarantinedConsumer consumer) {
            Objects.requireNonNull(consumer, "consumer is null");
            for (InboxSection c : consumers) {
                if (c.name().equals(consumer.consumer())) {
                    throw new IllegalArgumentException("consumer '" + consumer.consumer() + "' is given twice");
                }
            }
            consumers.add(new InboxSection(consumer));
            return this;
        }

        /** An outbox whose backlog is shown, under {@code name} (1–64 characters, distinct). */
        public Builder outbox(String name, dev.idem.outbox.Outbox outbox) {
            if (name == null || name.isBlank() || name.length() > 64) {
                throw new IllegalArgumentException("outbox name must be 1-64 characters");
            }
            Objects.requireNonNull(outbox, "outbox is null");
            for (OutboxSection o : outboxes) {
                if (o.name().equals(name)) {
                    throw new IllegalArgumentException("outbox '" + name + "' is given twice");
                }
            }
            outboxes.add(new OutboxSection(name, outbox));
            return this;
        }

        /** A sweeper whose runs are shown. */
        public Builder sweeper(Sweeper sweeper) {
            sweepers.add(Objects.requireNonNull(sweeper, "sweeper is null"));
            return this;
        }

        /** Where the store's durability findings come from, e.g. {@code JdbcIdempotencyStore::durabilityFindings}. */
        public Builder durability(Supplier<List<String>> findings) {
            this.durability = Objects.requireNonNull(findings, "findings is null");
            return this;
        }

        /**
         * Whether quarantined messages' payloads (base64), headers and error texts, and the outbox's
         * last errors, are shown: they are the application's data. Default false.
         */
        public Builder showContent(boolean showContent) {
            this.showContent = showContent;
            return this;
        }

        /** Told of every action, refused ones included: an audit trail, a meter. Default: none (actions are logged anyway). */
        public Builder listener(AdminListener listener) {
            this.listener = Objects.requireNonNull(listener, "listener is null");
            return this;
        }

        /** The clock sweeper lag is measured on; default UTC. */
        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock is null");
            return this;
        }

        /** @throws IllegalStateException if no store was given */
        public IdemAdmin build() {
            if (store == null) {
                throw new IllegalStateException("IdemAdmin needs a store");
            }
            return new IdemAdmin(this);
        }
    }

}
