package dev.idem.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.Fingerprint;
import dev.idem.IdempotencyKey;
import dev.idem.LeaseLostException;
import dev.idem.Scope;
import dev.idem.StoredResponse;
import dev.idem.jdbc.ActionSequences.Action;
import dev.idem.jdbc.ActionSequences.Checkpoint;
import dev.idem.jdbc.ActionSequences.Claim;
import dev.idem.jdbc.ActionSequences.Complete;
import dev.idem.jdbc.ActionSequences.ExpireLease;
import dev.idem.jdbc.ActionSequences.ExpireRetention;
import dev.idem.jdbc.ActionSequences.Purge;
import dev.idem.jdbc.ActionSequences.Release;
import dev.idem.jdbc.ActionSequences.Renew;
import dev.idem.jdbc.ActionSequences.Scenario;
import dev.idem.jdbc.ActionSequences.Shrunk;
import dev.idem.jdbc.testing.Backends;
import dev.idem.spi.ClaimOutcome;
import dev.idem.spi.ClaimRequest;
import dev.idem.spi.IdempotencyRecord;
import dev.idem.spi.RecordKey;
import dev.idem.spi.RecordState;
import dev.idem.spi.RecoveryPoint;
import dev.idem.testing.RealServices;
import dev.idem.testing.TestDatabase;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * Model-based test of {@link JdbcIdempotencyStore}: random interleavings of the actions of three
 * actors on one to three keys with two fingerprints run against the real store and against a small
 * pure-Java model of the {@code IdempotencyStore} contract (its javadoc). After every action, every
 * key's {@code find} and raw row must agree with the model; every claim's answer, attempt, recovery
 * point and replayed response must be the one the model predicts; tokens must grow strictly per key;
 * a write with a token that is not the record's current one must throw {@link LeaseLostException}
 * and leave the row exactly as it was; {@code purge} must delete exactly the expired rows. After all
 * tries, every one of {@link #REQUIRED_OUTCOMES} must have been reached at least once.
 *
 * <p><b>Tries, seeds and shrinking.</b> Each backend runs {@code idem.model.tries} (default
 * {@value #DEFAULT_TRIES}) tries; each try draws its scenario ({@link ActionSequences#generate})
 * from its own {@link SplittableRandom}, seeded by the next number of a {@code SplittableRandom} on
 * the base seed {@code idem.model.seed} (default {@value #DEFAULT_SEED}), so a run is reproducible
 * from its base seed, e.g.
 * {@code mvn test -pl idem-jdbc -Dtest=StoreModelTest -Didem.model.seed=12345 -Didem.model.tries=500}.
 * The first failing try is shrunk ({@link ActionSequences#shrink}, at most {@value #SHRINK_BUDGET}
 * re-runs, each on an emptied table) and the test fails naming the seed, the try, the shrunk
 * sequence, its failure and the original one.
 *
 * <p><b>Time travel (test only).</b> Nothing here sleeps. "The lease ran out" and "the retention
 * passed" are simulated by moving that one record's {@code lease_until} / {@code expires_at}
 * (epoch-millisecond columns on the database's clock) one day into the past with a direct
 * {@code UPDATE} on the test database — see {@link Harness#shift}. Lease (60 s) and retention
 * (10 min) are both far shorter than the shift, so a moved time is over for the rest of the try.
 *
 * <p><b>Tombstones.</b> The JDBC store keeps a released record as a state-2 row until it expires (so
 * the next owner's token grows from it). Such a row is absent for {@code claim} and {@code find}, but
 * {@code purge} deletes and counts it once its retention passed, so the model keeps it too.
 *
 * <p>Each test opens one database of its backend (PostgreSQL through {@link RealServices}: skipped,
 * or failed under {@code IDEM_REQUIRE_SERVICES}, when there is none) and closes it at the end; every
 * run empties the table ({@code purge} is table-wide) and uses a fresh scope.
 */
class StoreModelTest {
    static final int ACTORS = ActionSequences.ACTORS;
    static final int OWNER = ActionSequences.OWNER;
    static final Duration LEASE = Duration.ofSeconds(60);
    static final Duration RETENTION = Duration.ofMinutes(10);
    /** How far a time-travel action moves a record's time into the past: far more than LEASE and RETENTION. */
    static final long SHIFT_MS = Duration.ofDays(1).toMillis();
    static final Fingerprint[] FINGERPRINTS = {fingerprint("A"), fingerprint("B")};
    static final long DEFAULT_SEED = 20240611L;
    static final int DEFAULT_TRIES = 100;
    /** At most this many re-runs while shrinking a failing scenario. */
    static final int SHRINK_BUDGET = 300;
    private static final AtomicLong RUNS = new AtomicLong();
    static final List<String> REQUIRED_OUTCOMES = List.of(
            "claim: new", "claim: after release", "claim: after expiry", "claim: takeover", "claim: takeover with recovery point",
            "claim: replay", "claim: mismatch", "claim: in progress",
            "checkpoint: ok", "checkpoint: lease lost", "complete: ok", "complete: lease lost",
            "release: ok", "release: lease lost", "renew: ok", "renew: lease lost",
            "purge: deleted all expired");

    // ---- the tests ----------------------------------------------------------------------------

    @Test
    void sqliteStoreAgreesWithModel() {
        agreesWithModel(Backends.SQLITE);
    }

    @Test
    void postgresStoreAgreesWithModel() {
        agreesWithModel(Backends.POSTGRESQL); // open() skips (or fails) via RealServices without a server
    }

    @Test
    void mariadbStoreAgreesWithModel() {
        agreesWithModel(Backends.MARIADB); // open() skips (or fails) via RealServices without a server
    }

    private static void agreesWithModel(Backends backend) {
        long seed = Long.decode(System.getProperty("idem.model.seed", Long.toString(DEFAULT_SEED)));
        int tries = Integer.parseInt(System.getProperty("idem.model.tries", Integer.toString(DEFAULT_TRIES)));
        try (TestDatabase db = backend.open()) {
            JdbcIdempotencyStore store = Backends.migratedStore(db);
            Map<String, Integer> outcomes = new TreeMap<>();
            SplittableRandom seeds = new SplittableRandom(seed);
            for (int t = 1; t <= tries; t++) {
                Scenario scenario = ActionSequences.generate(new SplittableRandom(seeds.nextLong()));
                try {
                    new Harness(db, store, scenario).run().forEach(outcome -> outcomes.merge(outcome, 1, Integer::sum));
                } catch (StepFailure failure) {
                    throw shrunk(db, store, seed, t, tries, scenario, failure);
                }
            }
            requireCoverage(db.product(), outcomes, seed, tries);
        }
    }

    /** Shrinks the failing scenario of try {@code t} and builds the failure to report. */
    private static AssertionError shrunk(TestDatabase db, JdbcIdempotencyStore store, long seed, int t, int tries,
                                         Scenario scenario, StepFailure original) {
        StepFailure[] last = {original};
        Shrunk shrunk = ActionSequences.shrink(scenario, original.steps(), candidate -> {
            try {
                new Harness(db, store, candidate).run();
                return 0;
            } catch (StepFailure failure) {
                last[0] = failure;
                return failure.steps();
            }
        }, SHRINK_BUDGET);
        AssertionError error = new AssertionError(db.product() + ": the store disagrees with the model in try " + t + " of " + tries
                + " (idem.model.seed=" + seed + "; reproduce with -Didem.model.seed=" + seed + " -Didem.model.tries=" + t + ")"
                + "\nshrunk from " + scenario.actions().size() + " to " + shrunk.scenario().actions().size() + " actions in "
                + shrunk.runs() + " re-runs (budget " + shrunk.budget() + "):\n" + shrunk.scenario()
                + "\nfailure of the shrunk sequence:\n" + last[0].getMessage()
                + "\noriginal failure (" + scenario.actions().size() + " actions, full log attached as suppressed):\n"
                + original.getMessage().lines().findFirst().orElse(""), last[0].getCause());
        error.addSuppressed(original);
        return error;
    }

    /**
     * Fails (after all tries passed) if a run never reached one of these step outcomes, so the checks
     * on them cannot silently stop being exercised when the generator or the store changes. Each is
     * seen at least a dozen times in a run of 100 tries with the default seed.
     */
    private static void requireCoverage(String product, Map<String, Integer> outcomes, long seed, int tries) {
        List<String> missing = REQUIRED_OUTCOMES.stream().filter(outcome -> !outcomes.containsKey(outcome)).toList();
        assertThat(missing)
                .withFailMessage("%s: %d tries (idem.model.seed=%d) never reached the step outcomes %s; reached: %s",
                        product, tries, seed, missing, outcomes)
                .isEmpty();
    }

    /** A failed check while running a scenario; {@link #steps} counts the steps up to the failing one. */
    static final class StepFailure extends AssertionError {
        private final int steps;

        StepFailure(String message, int steps, Throwable cause) {
            super(message, cause);
            this.steps = steps;
        }

        int steps() {
            return steps;
        }
    }

    // ---- the model ----------------------------------------------------------------------------

    enum RowState {
        IN_PROGRESS(0), COMPLETED(1), RELEASED(2);

        final int code;

        RowState(int code) {
            this.code = code;
        }
    }

    /** The model of one physical row; {@code null} in {@link Model#rows} means no row at all. */
    static final class Row {
        RowState state;
        Fingerprint fingerprint;
        long token;
        int attempt;
        RecoveryPoint recoveryPoint;
        StoredResponse response;
        boolean leaseOver;
        boolean retentionOver;

        Row(Fingerprint fingerprint, long token, int attempt, RecoveryPoint recoveryPoint) {
            this.state = RowState.IN_PROGRESS;
            this.fingerprint = fingerprint;
            this.token = token;
            this.attempt = attempt;
            this.recoveryPoint = recoveryPoint;
        }

        /** The contract's Expiry: retention passed and, if in progress, the lease is over too. */
        boolean expired() {
            return retentionOver && (state != RowState.IN_PROGRESS || leaseOver);
        }

        /** What claim and find see. */
        boolean live() {
            return state != RowState.RELEASED && !expired();
        }

        @Override
        public String toString() {
            return state + "(fp=" + (fingerprint.equals(FINGERPRINTS[0]) ? "A" : "B") + ", token=" + token + ", attempt=" + attempt
                    + (recoveryPoint == null ? "" : ", rp=" + recoveryPoint.phase())
                    + (response == null ? "" : ", status=" + response.status())
                    + (leaseOver ? ", leaseOver" : "") + (retentionOver ? ", retentionOver" : "") + ")";
        }
    }

    static final class Model {
        final Row[] rows;
        /** Largest token the store ever issued for each key in this try. */
        final Long[] maxToken;
        /** The last token each actor acquired for each key (it keeps using it, stale or not). */
        final Long[][] tokens = new Long[ACTORS][];
        /** Which actor acquired each key last. */
        final Integer[] lastAcquirer;

        Model(int keys) {
            rows = new Row[keys];
            maxToken = new Long[keys];
            lastAcquirer = new Integer[keys];
            for (int a = 0; a < ACTORS; a++) {
                tokens[a] = new Long[keys];
            }
        }

        /** Whether {@code token} may write to key {@code k}: the row is in progress with exactly that token. */
        boolean current(int k, long token) {
            Row row = rows[k];
            return row != null && row.state == RowState.IN_PROGRESS && row.token == token;
        }

        @Override
        public String toString() {
            StringBuilder out = new StringBuilder();
            for (int k = 0; k < rows.length; k++) {
                out.append("k").append(k).append('=').append(rows[k] == null ? "none" : rows[k]).append("; ");
            }
            for (int a = 0; a < ACTORS; a++) {
                out.append("a").append(a).append(" tokens=").append(java.util.Arrays.toString(tokens[a])).append("; ");
            }
            return out.toString();
        }
    }

    // ---- running a scenario against store and model -------------------------------------------

    static final class Harness {
        private final TestDatabase db;
        private final JdbcIdempotencyStore store;
        private final Scenario scenario;
        private final Scope scope;
        private final Model model;
        private final List<String> log = new ArrayList<>();
        /** What kind of step the last action was, for the coverage check. */
        private String category;

        Harness(TestDatabase db, JdbcIdempotencyStore store, Scenario scenario) {
            this.db = db;
            this.store = store;
            this.scenario = scenario;
            this.scope = Scope.of("run-" + RUNS.incrementAndGet(), "POST /model");
            this.model = new Model(scenario.keys());
        }

        /** Runs the scenario on an emptied table; answers each step's outcome category. */
        List<String> run() {
            sql("DELETE FROM idem_record");
            List<String> outcomes = new ArrayList<>();
            for (int i = 0; i < scenario.actions().size(); i++) {
                Action action = scenario.actions().get(i);
                try {
                    category = null;
                    log.add((i + 1) + ". " + action + " -> " + apply(action));
                    outcomes.add(category);
                    checkAllKeys();
                } catch (AssertionError | RuntimeException e) {
                    throw new StepFailure(db.product() + ": step " + (i + 1) + " " + action + ": " + e.getMessage()
                            + "\n  model at failure: " + model
                            + "\n  steps run:\n    " + String.join("\n    ", log), i + 1, e);
                }
            }
            return outcomes;
        }

        private String apply(Action action) {
            if (action instanceof Claim c) {
                return claim(c);
            } else if (action instanceof Checkpoint c) {
                RecoveryPoint point = RecoveryPoint.of(c.phase(), c.state().getBytes(StandardCharsets.UTF_8));
                return write("checkpoint", c.actor(), c.key(), (id, token) -> store.checkpoint(id, token, point), row -> row.recoveryPoint = point);
            } else if (action instanceof Complete c) {
                StoredResponse response = response(c);
                return write("complete", c.actor(), c.key(), (id, token) -> store.complete(id, token, response, RETENTION), row -> {
                    row.state = RowState.COMPLETED;
                    row.response = response;
                    row.recoveryPoint = null;
                    row.leaseOver = true;       // complete ends the lease
                    row.retentionOver = false;  // and keeps the record for RETENTION from now
                });
            } else if (action instanceof Release r) {
                return write("release", r.actor(), r.key(), (id, token) -> store.release(id, token), row -> {
                    row.state = RowState.RELEASED; // a tombstone: absent for claim/find, expires_at unchanged
                    row.recoveryPoint = null;
                    row.leaseOver = true;
                });
            } else if (action instanceof Renew r) {
                Duration lease = r.zero() ? Duration.ZERO : LEASE;
                return write("renew", r.actor(), r.key(), (id, token) -> store.renew(id, token, lease), row -> row.leaseOver = r.zero());
            } else if (action instanceof ExpireLease e) {
                category = "time travel";
                shift("lease_until", e.key());
                return "moved";
            } else if (action instanceof ExpireRetention e) {
                category = "time travel";
                shift("expires_at", e.key());
                return "moved";
            } else if (action instanceof Purge p) {
                return purge(p.limit());
            }
            throw new IllegalStateException("unknown action " + action);
        }

        // ---- claim

        private String claim(Claim c) {
            int k = c.key();
            Fingerprint fp = FINGERPRINTS[c.fp()];
            Row row = model.rows[k];
            RecordKey id = id(k);
            if (row == null && model.maxToken[k] != null) {
                awaitClockPast(model.maxToken[k]);
            }
            Map<String, Object> rawBefore = rawRow(k);
            ClaimOutcome outcome = store.claim(new ClaimRequest(id, fp, LEASE, RETENTION));

            if (row == null || row.state == RowState.RELEASED || row.expired()) {
                // Absent, released or expired: a fresh acquisition (attempt 1, nothing to recover).
                ClaimOutcome.Acquired acquired = expect(ClaimOutcome.Acquired.class, outcome, "absent/released/expired record");
                check(acquired.attempt() == 1, "attempt " + acquired.attempt() + ", expected 1 for a fresh acquisition");
                check(acquired.recoveryPoint().isEmpty(), "a fresh acquisition returned recovery point " + acquired.recoveryPoint());
                category = row == null ? "claim: new" : row.state == RowState.RELEASED ? "claim: after release" : "claim: after expiry";
                return acquired(c, fp, acquired, 1, null);
            }
            if (!row.fingerprint.equals(fp)) {
                expect(ClaimOutcome.Mismatch.class, outcome, "live " + row.state + " record with the other fingerprint");
                checkUnchanged(k, rawBefore, "a Mismatch claim");
                category = "claim: mismatch";
                return "Mismatch";
            }
            if (row.state == RowState.COMPLETED) {
                ClaimOutcome.Replay replay = expect(ClaimOutcome.Replay.class, outcome, "completed record, same fingerprint");
                checkSameResponse(row.response, replay.response(), "replayed response");
                checkUnchanged(k, rawBefore, "a Replay claim");
                category = "claim: replay";
                return "Replay(" + replay.response().status() + ")";
            }
            if (row.leaseOver) {
                ClaimOutcome.Acquired acquired = expect(ClaimOutcome.Acquired.class, outcome, "in progress, lease over, same fingerprint (takeover)");
                check(acquired.attempt() == row.attempt + 1, "takeover attempt " + acquired.attempt() + ", expected " + (row.attempt + 1));
                check(Objects.equals(acquired.recoveryPoint().orElse(null), row.recoveryPoint),
                        "takeover returned recovery point " + acquired.recoveryPoint() + ", expected " + row.recoveryPoint);
                category = row.recoveryPoint == null ? "claim: takeover" : "claim: takeover with recovery point";
                return acquired(c, fp, acquired, row.attempt + 1, row.recoveryPoint);
            }
            ClaimOutcome.InProgress inProgress = expect(ClaimOutcome.InProgress.class, outcome, "in progress with a live lease");
            check(!inProgress.retryAfter().isNegative() && !inProgress.retryAfter().isZero() && inProgress.retryAfter().compareTo(LEASE) <= 0,
                    "retryAfter " + inProgress.retryAfter() + " is not within (0, " + LEASE + "]");
            checkUnchanged(k, rawBefore, "an InProgress claim");
            category = "claim: in progress";
            return "InProgress";
        }

        private String acquired(Claim c, Fingerprint fp, ClaimOutcome.Acquired acquired, int attempt, RecoveryPoint point) {
            int k = c.key();
            Long max = model.maxToken[k];
            check(max == null || acquired.token() > max,
                    "token " + acquired.token() + " does not grow: an earlier acquisition of this key had token " + max);
            model.maxToken[k] = acquired.token();
            model.tokens[c.actor()][k] = acquired.token();
            model.lastAcquirer[k] = c.actor();
            model.rows[k] = new Row(fp, acquired.token(), attempt, point);
            return "Acquired(token=" + acquired.token() + ", attempt=" + acquired.attempt()
                    + acquired.recoveryPoint().map(p -> ", rp=" + p.phase()).orElse("") + ")";
        }

        // ---- token-conditional writes

        @FunctionalInterface
        interface Write {
            void run(RecordKey id, long token);
        }

        private String write(String name, int writer, int k, Write write, java.util.function.Consumer<Row> effect) {
            Integer actor = writer == OWNER ? model.lastAcquirer[k] : Integer.valueOf(writer);
            Long token = actor == null ? null : model.tokens[actor][k];
            if (token == null) {
                category = name + ": skipped";
                return "skipped (" + (actor == null ? "nobody acquired this key yet" : "a" + actor + " holds no token for this key") + ")";
            }
            boolean current = model.current(k, token);
            Map<String, Object> rawBefore = rawRow(k);
            Optional<IdempotencyRecord> findBefore = store.find(id(k));
            try {
                write.run(id(k), token);
            } catch (LeaseLostException e) {
                check(!current, "LeaseLostException for token " + token + ", which the model says is current: " + e.getMessage());
                check(e.token() == token, "LeaseLostException names token " + e.token() + ", the write used " + token);
                check(scope.equals(e.scope()), "LeaseLostException names scope " + e.scope() + ", expected " + scope);
                checkUnchanged(k, rawBefore, "a rejected write");
                Optional<IdempotencyRecord> findAfter = store.find(id(k));
                check(findBefore.equals(findAfter), "find changed after a rejected write: " + findBefore + " -> " + findAfter);
                category = name + ": lease lost";
                return "LeaseLost(a" + actor + ", token=" + token + ")";
            }
            check(current, "write with token " + token + " succeeded, but the model says it is stale (row " + model.rows[k] + ")");
            effect.accept(model.rows[k]);
            category = name + ": ok";
            return "ok(a" + actor + ", token=" + token + ")";
        }

        // ---- time travel and purge

        /**
         * TEST-ONLY TIME TRAVEL: instead of sleeping until a lease or a retention is over, move that
         * one record's epoch-millisecond column {@link #SHIFT_MS} into the past on the test database.
         * Every comparison the store makes is "column &lt;= database now", so this is the same as the
         * database clock having advanced by SHIFT_MS for this record only.
         */
        private void shift(String column, int k) {
            int moved;
            try (Connection c = db.dataSource().getConnection();
                 PreparedStatement ps = c.prepareStatement(
                         "UPDATE idem_record SET " + column + " = " + column + " - ? WHERE scope = ? AND idem_key = ?")) {
                ps.setLong(1, SHIFT_MS);
                ps.setString(2, scope.value());
                ps.setString(3, key(k));
                moved = ps.executeUpdate();
            } catch (SQLException e) {
                throw new IllegalStateException("time travel failed", e);
            }
            Row row = model.rows[k];
            check(moved == (row == null ? 0 : 1), "time travel moved " + moved + " rows, the model has " + (row == null ? "none" : "one"));
            if (row != null) {
                if (column.equals("lease_until")) {
                    row.leaseOver = true;
                } else {
                    row.retentionOver = true;
                }
            }
        }

        private String purge(int limit) {
            List<Integer> expired = new ArrayList<>();
            for (int k = 0; k < model.rows.length; k++) {
                if (model.rows[k] != null && model.rows[k].expired()) {
                    expired.add(k);
                }
            }
            int deleted = store.purge(limit);
            int expected = Math.min(limit, expired.size());
            check(deleted == expected, "purge(" + limit + ") deleted " + deleted + ", expected " + expected + " (expired keys " + expired + ")");
            // Which of the expired rows go when there are more than the limit is the store's choice: observe it.
            int gone = 0;
            Map<String, Map<String, Object>> table = rawRows();
            for (int k = 0; k < model.rows.length; k++) {
                boolean exists = table.containsKey(scope.value() + "/" + key(k));
                if (model.rows[k] != null && !exists) {
                    check(expired.contains(k), "purge deleted k" + k + ", which is not expired: " + model.rows[k]);
                    model.rows[k] = null;
                    gone++;
                }
            }
            check(gone == deleted, "purge reported " + deleted + " deletions, but " + gone + " of this try's rows are gone");
            category = expired.size() > limit ? "purge: limited" : deleted > 0 ? "purge: deleted all expired" : "purge: nothing expired";
            return "deleted " + deleted;
        }

        /**
         * A fresh row's first token is seeded from the database clock (SQLite: millisecond
         * resolution). Time travel moves record times but not that clock, so a record could be
         * claimed, "expired", purged and claimed again within one real millisecond — which real time
         * never allows (a purge needs the retention to have passed). Wait for the clock to pass the
         * key's last token to keep that premise; this is at most about a millisecond.
         */
        private void awaitClockPast(long token) {
            String now = switch (store.dialect()) {
                case SQLITE -> "SELECT CAST(unixepoch('subsec') * 1000000 AS INTEGER)";
                case MARIADB -> "SELECT TIMESTAMPDIFF(MICROSECOND, '1970-01-01 00:00:00', UTC_TIMESTAMP(6))";
                default -> "SELECT (extract(epoch from clock_timestamp()) * 1000000)::bigint";
            };
            long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
            try (Connection c = db.dataSource().getConnection(); Statement st = c.createStatement()) {
                while (true) {
                    try (ResultSet rs = st.executeQuery(now)) {
                        rs.next();
                        if (rs.getLong(1) > token) {
                            return;
                        }
                    }
                    if (System.nanoTime() > deadline) {
                        throw new IllegalStateException("the database clock did not pass token " + token + " within 5 s");
                    }
                    Thread.onSpinWait();
                }
            } catch (SQLException e) {
                throw new IllegalStateException("cannot read the database clock", e);
            }
        }

        // ---- checks after every step

        private void checkAllKeys() {
            Map<String, Map<String, Object>> table = rawRows();
            long modelRows = java.util.Arrays.stream(model.rows).filter(Objects::nonNull).count();
            check(table.size() == modelRows, "the table has " + table.size() + " rows " + table.keySet() + ", the model " + modelRows);
            for (int k = 0; k < model.rows.length; k++) {
                Row row = model.rows[k];
                Map<String, Object> raw = table.getOrDefault(scope.value() + "/" + key(k), Map.of());
                check(raw.isEmpty() == (row == null), "k" + k + ": the table has " + (raw.isEmpty() ? "no row" : "row " + raw)
                        + ", the model has " + (row == null ? "none" : row));
                if (row != null) {
                    check(((Number) raw.get("state")).intValue() == row.state.code, "k" + k + ": row state " + raw.get("state") + ", model " + row);
                    check(((Number) raw.get("token")).longValue() == row.token, "k" + k + ": row token " + raw.get("token") + ", model " + row);
                }
                Optional<IdempotencyRecord> found = store.find(id(k));
                if (row == null || !row.live()) {
                    check(found.isEmpty(), "k" + k + ": find returned " + found.map(this::describe).orElse("") + " for a record the model has as "
                            + (row == null ? "absent" : row));
                    continue;
                }
                check(found.isPresent(), "k" + k + ": find returned nothing for live " + row);
                IdempotencyRecord r = found.get();
                RecordState state = row.state == RowState.COMPLETED ? RecordState.COMPLETED : RecordState.IN_PROGRESS;
                check(r.id().equals(id(k)), "k" + k + ": find returned id " + r.id());
                check(r.state() == state, "k" + k + ": find state " + r.state() + ", model " + row);
                check(r.fingerprint().equals(row.fingerprint), "k" + k + ": find fingerprint " + r.fingerprint() + ", model " + row);
                check(r.token() == row.token, "k" + k + ": find token " + r.token() + ", model " + row);
                check(r.attempt() == row.attempt, "k" + k + ": find attempt " + r.attempt() + ", model " + row);
                check(Objects.equals(r.recoveryPoint().orElse(null), row.recoveryPoint),
                        "k" + k + ": find recovery point " + r.recoveryPoint() + ", model " + row.recoveryPoint);
                if (row.state == RowState.COMPLETED) {
                    checkSameResponse(row.response, r.response().orElse(null), "k" + k + ": find response");
                } else {
                    check(r.response().isEmpty(), "k" + k + ": an in-progress record has a response");
                }
            }
        }

        private void checkUnchanged(int k, Map<String, Object> before, String what) {
            Map<String, Object> after = rawRow(k);
            check(before.equals(after), what + " changed the row of k" + k + ": " + before + " -> " + after);
        }

        private static void checkSameResponse(StoredResponse expected, StoredResponse actual, String what) {
            check(actual != null, what + " is missing");
            check(expected.equals(actual) && new ArrayList<>(expected.headers().entrySet()).equals(new ArrayList<>(actual.headers().entrySet())),
                    what + " differs: expected " + expected.status() + " " + expected.headers() + " \"" + new String(expected.body(), StandardCharsets.UTF_8)
                            + "\", got " + actual.status() + " " + actual.headers() + " \"" + new String(actual.body(), StandardCharsets.UTF_8) + "\"");
        }

        private <T extends ClaimOutcome> T expect(Class<T> type, ClaimOutcome outcome, String why) {
            check(type.isInstance(outcome), "claim answered " + outcome + ", the model expects " + type.getSimpleName() + " (" + why + ")");
            return type.cast(outcome);
        }

        private static void check(boolean condition, String message) {
            if (!condition) {
                throw new AssertionError(message);
            }
        }

        // ---- helpers

        private RecordKey id(int k) {
            return new RecordKey(scope, IdempotencyKey.of(key(k)));
        }

        private static String key(int k) {
            return "key-" + k;
        }

        private static StoredResponse response(Complete c) {
            Map<String, List<String>> headers = new LinkedHashMap<>();
            if (c.headers()) {
                // Deliberately not in alphabetical order, with a repeated header: replay must keep the order.
                headers.put("X-Zeta", List.of("z1", "z2"));
                headers.put("Content-Type", List.of("text/plain"));
            }
            return StoredResponse.of(c.status(), headers, c.body().getBytes(StandardCharsets.UTF_8));
        }

        private String describe(IdempotencyRecord r) {
            return r.state() + "(token=" + r.token() + ", attempt=" + r.attempt() + ")";
        }

        /** Every column of the key's physical row (empty map if none). */
        private Map<String, Object> rawRow(int k) {
            return rawRows().getOrDefault(scope.value() + "/" + key(k), Map.of());
        }

        /**
         * The whole table (it only holds this try's rows), keyed by "scope/key": every column, blobs
         * as hex, numbers as longs.
         */
        private Map<String, Map<String, Object>> rawRows() {
            try (Connection c = db.dataSource().getConnection();
                 Statement st = c.createStatement();
                 ResultSet rs = st.executeQuery("SELECT scope, idem_key, fingerprint, state, token, attempt, lease_until, expires_at,"
                         + " created_at, recovery_phase, recovery_state, status, headers, body FROM idem_record")) {
                Map<String, Map<String, Object>> rows = new LinkedHashMap<>();
                while (rs.next()) {
                    Map<String, Object> row = new LinkedHashMap<>();
                    for (int i = 3; i <= rs.getMetaData().getColumnCount(); i++) {
                        Object value = rs.getObject(i);
                        if (value instanceof byte[] bytes) {
                            value = "0x" + HexFormat.of().formatHex(bytes);
                        } else if (value instanceof Number n) {
                            value = n.longValue();
                        }
                        row.put(rs.getMetaData().getColumnLabel(i).toLowerCase(java.util.Locale.ROOT), value);
                    }
                    check(rows.put(rs.getString(1) + "/" + rs.getString(2), row) == null, "two rows for one key");
                }
                return rows;
            } catch (SQLException e) {
                throw new IllegalStateException("cannot read the table", e);
            }
        }

        private void sql(String statement) {
            try (Connection c = db.dataSource().getConnection(); Statement st = c.createStatement()) {
                st.executeUpdate(statement);
            } catch (SQLException e) {
                throw new IllegalStateException(statement + " failed", e);
            }
        }
    }

    private static Fingerprint fingerprint(String body) {
        return Fingerprint.builder().part("body", body).build();
    }
}
