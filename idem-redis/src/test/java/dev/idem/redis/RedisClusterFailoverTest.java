package dev.idem.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.Fingerprint;
import dev.idem.Idem;
import dev.idem.IdempotencyKey;
import dev.idem.Outcome;
import dev.idem.Scope;
import dev.idem.StoredResponse;
import dev.idem.redis.internal.KeyLayout;
import dev.idem.spi.IdempotencyRecord;
import dev.idem.spi.RecordKey;
import dev.idem.spi.RecordState;
import dev.idem.testing.RedisCluster;
import io.lettuce.core.cluster.SlotHash;
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
 * A master killed with SIGKILL under load, on a private cluster of six nodes: 16 threads run engine
 * executions on fresh keys, each execution appending to a per-key list (its effect); a master is
 * killed 1.5 s in, its replica is promoted about 3 s later, the killed process is started again (it
 * rejoins as the new master's replica, as after a supervisor's restart), and every execution whose
 * answer was an error is retried with the same key until it gets an answer. Then it counts:
 * <ul>
 * <li><b>run twice</b>: keys whose effect list has more than one entry; every entry comes from a
 *     claim the store acknowledged (the engine runs an operation only after its claim returned);</li>
 * <li><b>claims lost</b>: keys run again as a fresh first attempt, i.e. the store forgot a claim it
 *     had acknowledged;</li>
 * <li><b>completions lost</b>: keys whose execution returned a stored result but which the store no
 *     longer holds as completed after the failover;</li>
 * <li><b>in doubt</b>: keys whose retry found the key still in progress (the claim survived, the
 *     completion did not, or a claim whose answer was lost survived): they wait for the lease (30 s
 *     here) to end, and a takeover then resumes them;</li>
 * <li><b>time without service</b>: from the kill to the first success on a key of the killed
 *     master's slots, and the longest pause of the whole cluster.</li>
 * </ul>
 * With replica acknowledgement on, nothing may run twice; off, the figures are only printed (on
 * one machine replication is fast, so duplicates may or may not show). Run it alone with
 * {@code mvn -o -pl idem-redis verify -Dtest=RedisClusterFailoverTest}; the figures are printed as
 * lines starting with {@code [failover]}.
 */
class RedisClusterFailoverTest {
    private static final int THREADS = 16;
    private static final Duration LOAD_BEFORE_KILL = Duration.ofMillis(1500);
    private static final Duration LOAD_AFTER_PROMOTION = Duration.ofMillis(1500);
    private static final Duration PROMOTION_DEADLINE = Duration.ofSeconds(15);
    private static final Duration RETRY_DEADLINE = Duration.ofSeconds(20);
    private static final Fingerprint FINGERPRINT = Fingerprint.builder().part("body", "{}").build();
    private static final StoredResponse PAID = StoredResponse.of(201, "paid".getBytes(StandardCharsets.UTF_8));

    @Test
    @Timeout(value = 50, unit = TimeUnit.SECONDS)
    @DisplayName("with replica acknowledgement, a master killed under load runs nothing twice and loses no acknowledged claim")
    void failoverWithReplicaAcknowledgementRunsNothingTwice() throws Exception {
        Figures figures = run(true);
        assertThat(figures.runTwice).as("executions run twice").isZero();
        assertThat(figures.claimsLost).as("acknowledged claims lost").isZero();
        assertThat(figures.completionsLost).as("acknowledged completions lost").isZero();
        assertThat(figures.unanswered).as("keys without an answer after %s of retries", RETRY_DEADLINE).isZero();
        assertThat(figures.executions).as("executions ran before and after the failover").isGreaterThan(100);
    }

    @Test
    @Timeout(value = 50, unit = TimeUnit.SECONDS)
    @DisplayName("without replica acknowledgement, the same failover is measured and reported (duplicates are not asserted)")
    void failoverWithoutReplicaAcknowledgementIsReported() throws Exception {
        Figures figures = run(false);
        assertThat(figures.executions).as("executions ran before and after the failover").isGreaterThan(100);
    }

    private Figures run(boolean acknowledge) throws Exception {
        String label = "replica ack " + (acknowledge ? "on " : "off");
        try (RedisCluster cluster = RedisCluster.start()) {
            RedisIdempotencyStore.Builder builder = RedisIdempotencyStore.clusterBuilder(RedisClusterTests.uris(cluster, Duration.ofSeconds(1)))
                    .keyPrefix(RedisTests.freshPrefix()).topologyRefreshPeriod(Duration.ofSeconds(1));
            builder = acknowledge ? builder.replicaAcknowledgement(1, Duration.ofMillis(500)) : builder.noReplicaAcknowledgement();
            try (RedisIdempotencyStore store = builder.build()) {
                return load(cluster, store, label);
            }
        }
    }

    private Figures load(RedisCluster cluster, RedisIdempotencyStore store, String label) throws Exception {
        Idem idem = Idem.builder().store(store).lease(Duration.ofSeconds(30)).build();
        Scope scope = Scope.of("failover", "POST /payments");
        KeyLayout layout = new KeyLayout(store.keyPrefix());
        Victim victim = victim(cluster);

        Map<String, List<Integer>> effects = new ConcurrentHashMap<>();
        Set<String> stored = ConcurrentHashMap.newKeySet();
        Set<String> inDoubt = ConcurrentHashMap.newKeySet();
        Set<String> unanswered = ConcurrentHashMap.newKeySet();
        List<Long> victimSuccesses = Collections.synchronizedList(new ArrayList<>());
        List<Long> otherSuccesses = Collections.synchronizedList(new ArrayList<>());
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
                    // A failed key is retried (same key) 20 ms after its last error; meanwhile new keys go on,
                    // so the masters that did not fail keep their load.
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
                        String key = "k-" + keys.incrementAndGet();
                        boolean onVictim = victim.serves(SlotHash.getSlot(layout.of(new RecordKey(scope, IdempotencyKey.of(key))).record()));
                        pending = new Pending(key, onVictim, now + RETRY_DEADLINE.toNanos(), now);
                    }
                    String key = pending.key;
                    try {
                        Outcome outcome = idem.execute(scope, IdempotencyKey.of(key), FINGERPRINT, run -> {
                            effects.computeIfAbsent(key, k -> new CopyOnWriteArrayList<>()).add(run.attempt());
                            return PAID;
                        });
                        long done = System.nanoTime();
                        if (outcome instanceof Outcome.InProgress) {
                            inDoubt.add(key);
                        } else {
                            if (outcome instanceof Outcome.Executed executed && executed.stored()) {
                                stored.add(key);
                            }
                            (pending.onVictim ? victimSuccesses : otherSuccesses).add(done);
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
        long killedAt = System.nanoTime();
        cluster.kill(victim.port);
        long promotedAt = awaitPromotion(cluster, victim);
        // A supervisor restarts the crashed process: it rejoins as the new master's replica, which
        // acknowledgement needs again (with one replica per master, the promoted one has none).
        cluster.restart(victim.port);
        long rejoinedAt = awaitReplica(cluster, victim.port);
        stopAt.set(System.nanoTime() + LOAD_AFTER_PROMOTION.toNanos());
        for (Future<?> worker : workers) {
            worker.get(RETRY_DEADLINE.toSeconds() + 20, TimeUnit.SECONDS);
        }
        pool.shutdown();

        // Every execution that returned a stored result must still be completed in the store.
        int completionsLost = 0;
        for (String key : stored) {
            Optional<IdempotencyRecord> record = store.find(new RecordKey(scope, IdempotencyKey.of(key)));
            if (record.isEmpty() || record.get().state() != RecordState.COMPLETED) {
                completionsLost++;
            }
        }
        Figures f = new Figures();
        f.keys = keys.get();
        f.executions = effects.values().stream().mapToInt(List::size).sum();
        f.runTwice = (int) effects.values().stream().filter(runs -> runs.size() > 1).count();
        f.claimsLost = (int) effects.values().stream().filter(runs -> runs.size() > 1 && runs.subList(1, runs.size()).contains(1)).count();
        f.completionsLost = completionsLost;
        f.inDoubt = inDoubt.size();
        f.inDoubtRan = (int) inDoubt.stream().filter(effects::containsKey).count();
        f.unanswered = unanswered.size();
        f.errors = errors.get();
        f.retriedKeys = retriedKeys.get();
        f.victimOutageMs = longestPause(victimSuccesses, killedAt);
        f.promotionMs = TimeUnit.NANOSECONDS.toMillis(promotedAt - killedAt);
        f.rejoinMs = TimeUnit.NANOSECONDS.toMillis(rejoinedAt - killedAt);
        f.clusterPauseMs = longestPause(otherSuccesses, killedAt);
        f.seconds = (System.nanoTime() - began) / 1e9;
        System.out.println("[failover] " + label + ": " + f);
        return f;
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

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** A key being worked on: retried with the same key until it gets an answer or its deadline passes. */
    private static final class Pending {
        final String key;
        final boolean onVictim;
        final long deadline;
        long nextTry;
        int retries;

        Pending(String key, boolean onVictim, long deadline, long nextTry) {
            this.key = key;
            this.onVictim = onVictim;
            this.deadline = deadline;
            this.nextTry = nextTry;
        }
    }

    /** The master to kill (the first in the cluster's node list), its slot ranges and its replica. */
    private record Victim(int port, String nodeId, List<int[]> ranges, int replicaPort) {
        boolean serves(int slot) {
            for (int[] range : ranges) {
                if (slot >= range[0] && slot <= range[1]) {
                    return true;
                }
            }
            return false;
        }
    }

    /**
     * A master with slots and its replica, as node 0 sees them. Right after the cluster is created a
     * node may not list every replica yet (gossip takes a moment): ask again until it does.
     */
    private static Victim victim(RedisCluster cluster) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (true) {
            Victim found = victimOnce(cluster);
            if (found != null) {
                return found;
            }
            assertThat(System.nanoTime()).as("no master with slots and a known replica in CLUSTER NODES").isLessThan(deadline);
            Thread.sleep(100);
        }
    }

    private static Victim victimOnce(RedisCluster cluster) throws Exception {
        List<String[]> nodes = new ArrayList<>();
        for (String line : cluster.cli(cluster.ports().get(0), "cluster", "nodes").split("\n")) {
            if (!line.isBlank()) {
                nodes.add(line.trim().split(" "));
            }
        }
        String[] master = nodes.stream().filter(n -> n[2].contains("master") && n.length > 8
                && nodes.stream().anyMatch(r -> r[3].equals(n[0]))).findFirst().orElse(null);
        if (master == null) {
            return null;
        }
        List<int[]> ranges = new ArrayList<>();
        for (int i = 8; i < master.length; i++) {
            String[] bounds = master[i].split("-");
            int low = Integer.parseInt(bounds[0]);
            ranges.add(new int[] {low, bounds.length > 1 ? Integer.parseInt(bounds[1]) : low});
        }
        String[] replica = nodes.stream().filter(n -> n[3].equals(master[0])).findFirst().orElseThrow();
        return new Victim(port(master[1]), master[0], ranges, port(replica[1]));
    }

    private static int port(String address) {
        String hostPort = address.split("@")[0];
        return Integer.parseInt(hostPort.substring(hostPort.lastIndexOf(':') + 1));
    }

    /** Waits until the victim's replica says it is a master and the cluster is ok again. */
    private static long awaitPromotion(RedisCluster cluster, Victim victim) throws Exception {
        long deadline = System.nanoTime() + PROMOTION_DEADLINE.toNanos();
        while (System.nanoTime() < deadline) {
            String role = cluster.cli(victim.replicaPort, "role");
            String info = cluster.cli(victim.replicaPort, "cluster", "info");
            if (role.startsWith("master") && info.contains("cluster_state:ok")) {
                return System.nanoTime();
            }
            Thread.sleep(50);
        }
        throw new IllegalStateException("the replica on port " + victim.replicaPort + " was not promoted within " + PROMOTION_DEADLINE);
    }

    /** Waits until the node at {@code port} is a replica whose link to its master is up. */
    private static long awaitReplica(RedisCluster cluster, int port) throws Exception {
        long deadline = System.nanoTime() + PROMOTION_DEADLINE.toNanos();
        while (System.nanoTime() < deadline) {
            String replication = cluster.cli(port, "info", "replication");
            if (replication.contains("role:slave") && replication.contains("master_link_status:up")) {
                return System.nanoTime();
            }
            Thread.sleep(50);
        }
        throw new IllegalStateException("the restarted node on port " + port + " did not rejoin as a replica within " + PROMOTION_DEADLINE);
    }

    /** What one failover run counted. */
    static final class Figures {
        int keys;
        int executions;
        int runTwice;
        int claimsLost;
        int completionsLost;
        int inDoubt;
        int inDoubtRan;
        int unanswered;
        int errors;
        int retriedKeys;
        long promotionMs;
        long rejoinMs;
        long victimOutageMs;
        long clusterPauseMs;
        double seconds;

        @Override
        public String toString() {
            return String.format("%d keys, %d executions, run twice %d, claims lost %d, completions lost %d, in doubt %d"
                    + " (of which the effect ran: %d), unanswered %d, errors %d on %d keys retried; promotion %d ms after the kill,"
                    + " killed node back as a replica %d ms after it; killed master's slots without service %d ms,"
                    + " other masters' slots %d ms; %.1f s",
                    keys, executions, runTwice, claimsLost, completionsLost, inDoubt, inDoubtRan, unanswered, errors, retriedKeys,
                    promotionMs, rejoinMs, victimOutageMs, clusterPauseMs, seconds);
        }
    }
}
