package dev.idem.nats.kv;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.Fingerprint;
import dev.idem.Idem;
import dev.idem.IdempotencyKey;
import dev.idem.Outcome;
import dev.idem.Scope;
import dev.idem.StoreException;
import dev.idem.StoredResponse;
import dev.idem.spi.IdempotencyRecord;
import dev.idem.spi.RecordKey;
import dev.idem.spi.RecordState;
import dev.idem.testing.NatsCluster;
import io.nats.client.Connection;
import io.nats.client.api.StreamInfo;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Servers killed with SIGKILL under load, on a private three-node cluster whose bucket has three
 * replicas. 16 threads run engine executions on fresh keys, each appending to a per-key list (its
 * effect; the engine runs an operation only after the store acknowledged its claim), and retry a key
 * whose answer was an error with the same key until it gets an answer. The figures are printed as
 * lines starting with {@code [nats-kv failover]}; run it alone with
 * {@code mvn -pl idem-nats -am verify -Dtest=NatsKvFailoverTest -Dsurefire.failIfNoSpecifiedTests=false}.
 *
 * <ul>
 * <li><b>run twice</b>: keys whose effect list has more than one entry;</li>
 * <li><b>claims lost</b>: keys run again as a fresh first attempt (the store forgot an acknowledged claim);</li>
 * <li><b>completions lost</b>: keys whose execution returned a stored result but which the store no
 *     longer holds as completed afterwards;</li>
 * <li><b>in doubt</b>: keys whose retry found the key still in progress (a claim or completion whose
 *     acknowledgement was lost in the election): they wait for their lease (30 s here) to end, and a
 *     takeover then resumes them.</li>
 * </ul>
 */
class NatsKvFailoverTest {
    private static final int THREADS = 16;
    private static final Duration LEASE = Duration.ofSeconds(30);
    private static final Duration LOAD_BEFORE_KILL = Duration.ofMillis(1500);
    private static final Duration LOAD_AFTER_ELECTION = Duration.ofMillis(1500);
    private static final Duration ELECTION_DEADLINE = Duration.ofSeconds(20);
    private static final Duration RETRY_DEADLINE = Duration.ofSeconds(20);
    private static final Fingerprint FINGERPRINT = Fingerprint.builder().part("body", "{}").build();
    private static final StoredResponse PAID = StoredResponse.of(201, "paid".getBytes(StandardCharsets.UTF_8));
    private static final Scope SCOPE = Scope.of("failover", "POST /payments");

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    @DisplayName("the stream leader killed under load: a new leader is elected, nothing runs twice, no acknowledged claim or completion is lost")
    void leaderKilledUnderLoad() throws Exception {
        try (NatsCluster cluster = NatsCluster.start()) {
            Connection connection = NatsKvTests.connect(cluster);
            String bucket = NatsKvTests.freshBucket();
            try {
                NatsKvIdempotencyStore store = NatsKvIdempotencyStore.builder(connection).bucket(bucket)
                        .createBucket(3, NatsKvTests.MAX_AGE).requestTimeout(Duration.ofSeconds(1)).build();
                Figures f = load(cluster, connection, store);
                System.out.println("[nats-kv failover] leader killed: " + f);
                assertThat(f.runTwice).as("executions run twice").isZero();
                assertThat(f.claimsLost).as("acknowledged claims lost").isZero();
                assertThat(f.completionsLost).as("acknowledged completions lost").isZero();
                assertThat(f.unanswered).as("keys without an answer after %s of retries", RETRY_DEADLINE).isZero();
                assertThat(f.newLeader).as("the new stream leader").isNotEqualTo(f.killed).isNotNull();
                assertThat(f.executions).as("executions ran before and after the failover").isGreaterThan(100);
            } finally {
                NatsKvTests.close(connection);
            }
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    @DisplayName("two of three nodes killed: calls fail with a StoreException and run nothing, nothing is lost, service resumes when one returns")
    void noMajorityRefusesAndResumes() throws Exception {
        try (NatsCluster cluster = NatsCluster.start()) {
            Connection connection = NatsKvTests.connect(cluster);
            String bucket = NatsKvTests.freshBucket();
            try {
                NatsKvIdempotencyStore store = NatsKvIdempotencyStore.builder(connection).bucket(bucket)
                        .createBucket(3, NatsKvTests.MAX_AGE).requestTimeout(Duration.ofSeconds(1)).build();
                Idem idem = Idem.builder().store(store).lease(LEASE).build();
                List<String> completed = new ArrayList<>();
                for (int i = 0; i < 50; i++) {
                    String key = "before-" + i;
                    assertThat(idem.execute(SCOPE, IdempotencyKey.of(key), FINGERPRINT, run -> PAID)).isInstanceOf(Outcome.Executed.class);
                    completed.add(key);
                }

                String leader = leader(connection, bucket);
                String other = cluster.names().stream().filter(n -> !n.equals(leader)).findFirst().orElseThrow();
                long killedAt = System.nanoTime();
                cluster.kill(leader);
                cluster.kill(other);

                AtomicInteger effects = new AtomicInteger();
                StoreException refused = null;
                int refusals = 0;
                long refusingUntil = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
                while (System.nanoTime() < refusingUntil) {
                    try {
                        idem.execute(SCOPE, IdempotencyKey.of("during"), FINGERPRINT, run -> {
                            effects.incrementAndGet();
                            return PAID;
                        });
                    } catch (StoreException e) {
                        refused = e;
                        refusals++;
                    }
                }
                assertThat(refused).as("a call without a majority").isNotNull();
                assertThat(refusals).as("calls refused").isPositive();
                assertThat(effects).as("effects run without a majority").hasValue(0);

                long restartedAt = System.nanoTime();
                cluster.restart(leader);
                Outcome resumed = null;
                long resumedAt = 0;
                long deadline = System.nanoTime() + RETRY_DEADLINE.toNanos();
                while (resumed == null && System.nanoTime() < deadline) {
                    try {
                        resumed = idem.execute(SCOPE, IdempotencyKey.of("during"), FINGERPRINT, run -> {
                            effects.incrementAndGet();
                            return PAID;
                        });
                        resumedAt = System.nanoTime();
                    } catch (StoreException e) {
                        Thread.sleep(50);
                    }
                }
                // A claim proposed while there was no majority may be committed once there is one again:
                // then the key is in progress (nothing ran) until its lease ends.
                assertThat(resumed).as("an answer once a node returned").isInstanceOfAny(Outcome.Executed.class, Outcome.InProgress.class);
                assertThat(effects).as("the effect ran at most once").hasValueLessThanOrEqualTo(1);
                int lost = 0;
                for (String key : completed) {
                    Outcome again = idem.execute(SCOPE, IdempotencyKey.of(key), FINGERPRINT, run -> {
                        effects.incrementAndGet();
                        return PAID;
                    });
                    if (!(again instanceof Outcome.Replayed)) {
                        lost++;
                    }
                }
                assertThat(lost).as("completed executions lost").isZero();
                System.out.println("[nats-kv failover] two of three killed: " + refusals + " calls refused in 3 s, each with "
                        + refused.getClass().getSimpleName() + " (\"" + refused.getMessage() + "\"), effects run while refused 0;"
                        + " first answer " + TimeUnit.NANOSECONDS.toMillis(resumedAt - restartedAt) + " ms after a node was restarted ("
                        + TimeUnit.NANOSECONDS.toMillis(resumedAt - killedAt) + " ms after the kill), " + resumed.getClass().getSimpleName()
                        + "; completed before the kill and lost: " + lost + " of " + completed.size());
            } finally {
                NatsKvTests.close(connection);
            }
        }
    }

    private Figures load(NatsCluster cluster, Connection connection, NatsKvIdempotencyStore store) throws Exception {
        Idem idem = Idem.builder().store(store).lease(LEASE).build();
        Map<String, List<Integer>> effects = new ConcurrentHashMap<>();
        Set<String> stored = ConcurrentHashMap.newKeySet();
        Set<String> inDoubt = ConcurrentHashMap.newKeySet();
        Set<String> unanswered = ConcurrentHashMap.newKeySet();
        List<Long> successes = Collections.synchronizedList(new ArrayList<>());
        Queue<Pending> retries = new ConcurrentLinkedQueue<>();
        AtomicInteger keys = new AtomicInteger();
        AtomicInteger errors = new AtomicInteger();
        AtomicInteger retriedKeys = new AtomicInteger();
        AtomicLong stopAt = new AtomicLong(Long.MAX_VALUE);

        ExecutorService pool = Executors.newFixedThreadPool(THREADS);
        long began = System.nanoTime();
        List<Future<?>> workers = new ArrayList<>();
        for (int t = 0; t < THREADS; t++) {
            workers.add(pool.submit(() -> {
                while (true) {
                    long now = System.nanoTime();
                    Pending pending = retries.poll();
                    if (pending != null && pending.nextTry > now) {
                        retries.offer(pending);
                        pending = null;
                        if (now >= stopAt.get()) {
                            Thread.sleep(5);
                            continue;
                        }
                    }
                    if (pending == null) {
                        if (now >= stopAt.get()) {
                            if (retries.isEmpty()) {
                                return null;
                            }
                            continue;
                        }
                        pending = new Pending("k-" + keys.incrementAndGet(), now + RETRY_DEADLINE.toNanos(), now);
                    }
                    String key = pending.key;
                    try {
                        Outcome outcome = idem.execute(SCOPE, IdempotencyKey.of(key), FINGERPRINT, run -> {
                            effects.computeIfAbsent(key, k -> new CopyOnWriteArrayList<>()).add(run.attempt());
                            return PAID;
                        });
                        if (outcome instanceof Outcome.InProgress) {
                            inDoubt.add(key);
                        } else {
                            if (outcome instanceof Outcome.Executed executed && executed.stored()) {
                                stored.add(key);
                            }
                            successes.add(System.nanoTime());
                        }
                    } catch (RuntimeException e) {
                        errors.incrementAndGet();
                        if (pending.retries++ == 0) {
                            retriedKeys.incrementAndGet();
                        }
                        if (System.nanoTime() > pending.deadline) {
                            unanswered.add(key);
                        } else {
                            pending.nextTry = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(20);
                            retries.offer(pending);
                        }
                    }
                }
            }));
        }

        Thread.sleep(LOAD_BEFORE_KILL.toMillis());
        Figures f = new Figures();
        f.killed = leader(connection, store.bucket());
        long killedAt = System.nanoTime();
        cluster.kill(f.killed);
        f.newLeader = awaitNewLeader(connection, store.bucket(), f.killed);
        long electedAt = System.nanoTime();
        // A supervisor restarts the crashed process; it catches up as a follower.
        cluster.restart(f.killed);
        stopAt.set(System.nanoTime() + LOAD_AFTER_ELECTION.toNanos());
        for (Future<?> worker : workers) {
            worker.get(RETRY_DEADLINE.toSeconds() + 20, TimeUnit.SECONDS);
        }
        pool.shutdown();

        for (String key : stored) {
            Optional<IdempotencyRecord> record = findAfterFailover(store, new RecordKey(SCOPE, IdempotencyKey.of(key)));
            if (record.isEmpty() || record.get().state() != RecordState.COMPLETED) {
                f.completionsLost++;
            }
        }
        f.keys = keys.get();
        f.stored = stored.size();
        f.executions = effects.values().stream().mapToInt(List::size).sum();
        f.runTwice = (int) effects.values().stream().filter(runs -> runs.size() > 1).count();
        f.claimsLost = (int) effects.values().stream().filter(runs -> runs.size() > 1 && runs.subList(1, runs.size()).contains(1)).count();
        f.inDoubt = inDoubt.size();
        f.inDoubtRan = (int) inDoubt.stream().filter(effects::containsKey).count();
        f.unanswered = unanswered.size();
        f.errors = errors.get();
        f.retriedKeys = retriedKeys.get();
        f.electionMs = TimeUnit.NANOSECONDS.toMillis(electedAt - killedAt);
        f.outageMs = longestPause(successes, killedAt);
        f.seconds = (System.nanoTime() - began) / 1e9;
        return f;
    }

    /**
     * The record as the cluster has it, asked again while JetStream answers that it is temporarily
     * unavailable: the killed node was just restarted and is catching up, and for a moment the cluster
     * may refuse a read (error 10008) as it refuses a write. A refused read is not a lost record; the
     * store reports it as a {@link StoreException}, as it should, and the check asks again.
     */
    private static Optional<IdempotencyRecord> findAfterFailover(NatsKvIdempotencyStore store, RecordKey id) throws InterruptedException {
        long deadline = System.nanoTime() + RETRY_DEADLINE.toNanos();
        while (true) {
            try {
                return store.find(id);
            } catch (StoreException refused) {
                if (System.nanoTime() > deadline) {
                    throw refused;
                }
                Thread.sleep(100);
            }
        }
    }

    /** The server that leads the bucket's stream, or null while it has none. */
    private static String leader(Connection connection, String bucket) throws Exception {
        StreamInfo info = connection.jetStreamManagement().getStreamInfo("KV_" + bucket);
        return info.getClusterInfo() == null ? null : info.getClusterInfo().getLeader();
    }

    private static String awaitNewLeader(Connection connection, String bucket, String killed) throws Exception {
        long deadline = System.nanoTime() + ELECTION_DEADLINE.toNanos();
        while (System.nanoTime() < deadline) {
            try {
                String leader = leader(connection, bucket);
                if (leader != null && !leader.equals(killed)) {
                    return leader;
                }
            } catch (Exception e) {
                // The meta leader may have been the killed node too: ask again.
            }
            Thread.sleep(50);
        }
        throw new IllegalStateException("the bucket's stream elected no new leader within " + ELECTION_DEADLINE);
    }

    /** The longest time after {@code from} between successful executions (from {@code from} to the first, then between any two). */
    private static long longestPause(List<Long> successes, long from) {
        List<Long> times;
        synchronized (successes) {
            times = new ArrayList<>(successes);
        }
        Collections.sort(times);
        long previous = from;
        long longest = 0;
        for (long t : times) {
            if (t > from) {
                longest = Math.max(longest, t - previous);
                previous = t;
            }
        }
        return TimeUnit.NANOSECONDS.toMillis(longest);
    }

    /** A key being worked on: retried with the same key until it gets an answer or its deadline passes. */
    private static final class Pending {
        final String key;
        final long deadline;
        long nextTry;
        int retries;

        Pending(String key, long deadline, long nextTry) {
            this.key = key;
            this.deadline = deadline;
            this.nextTry = nextTry;
        }
    }

    /** What one failover run counted. */
    private static final class Figures {
        String killed;
        String newLeader;
        int keys;
        int stored;
        int executions;
        int runTwice;
        int claimsLost;
        int completionsLost;
        int inDoubt;
        int inDoubtRan;
        int unanswered;
        int errors;
        int retriedKeys;
        long electionMs;
        long outageMs;
        double seconds;

        @Override
        public String toString() {
            return String.format("%d keys, %d executions, %d completed; run twice %d, claims lost %d, completions lost %d, in doubt %d"
                    + " (of which the effect ran: %d), unanswered %d, errors %d on %d keys retried; leader %s killed, %s elected"
                    + " %d ms after the kill; longest time without a successful execution %d ms; %.1f s",
                    keys, executions, stored, runTwice, claimsLost, completionsLost, inDoubt, inDoubtRan, unanswered, errors, retriedKeys,
                    killed, newLeader, electionMs, outageMs, seconds);
        }
    }
}
