package dev.idem.outbox;

import dev.idem.StoreException;
import dev.idem.spi.ListenerCalls;
import dev.idem.spi.Arguments;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Publishes an {@link Outbox}'s events through an {@link OutboxPublisher}: in order per aggregate,
 * at least once, each with its stable message id (see {@link Outbox} for the full contract).
 *
 * <p>One poll ({@link #runOnce()}) leases the heads of up to {@code maxAggregates} aggregates with
 * up to {@code maxPerAggregate} events each, publishes every aggregate's events in sequence order,
 * stops an aggregate at its first failure (that event is retried after an exponential backoff with
 * jitter, its later events wait), then marks what was published as sent and releases the rest.
 * {@link #start()} polls on a daemon thread: again at once after a poll that published something,
 * else after {@code pollInterval}; every {@code purgeInterval} it also purges sent events past the
 * outbox's retention (with retention by partition: drops the partitions past it, makes the ones ahead,
 * and tells the listener of partitions kept for an event not sent yet). Any number of relays, in one process or many, may run on one outbox.
 */
public final class OutboxRelay implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger("dev.idem.jdbc.outbox");
    private static final int MAX_PURGE_BATCHES = 100;

    private final Outbox outbox;
    private final OutboxPublisher publisher;
    private final String name;
    private final int maxAggregates;
    private final int maxPerAggregate;
    private final Duration pollInterval;
    private final Duration lease;
    private final Duration backoffBase;
    private final Duration backoffCap;
    private final Duration purgeInterval;
    private final int purgeBatchSize;
    private final OutboxListener listener;
    private final AtomicLong polls = new AtomicLong();
    private final Object sleeper = new Object();
    private Thread thread;
    private volatile boolean running;

    private OutboxRelay(Builder b) {
        this.outbox = b.outbox;
        this.publisher = b.publisher;
        this.name = b.name;
        this.maxAggregates = b.maxAggregates;
        this.maxPerAggregate = b.maxPerAggregate;
        this.pollInterval = b.pollInterval;
        this.lease = b.lease;
        this.backoffBase = b.backoffBase;
        this.backoffCap = b.backoffCap;
        this.purgeInterval = b.purgeInterval;
        this.purgeBatchSize = b.purgeBatchSize;
        this.listener = b.listener;
    }

    public static Builder builder(Outbox outbox, OutboxPublisher publisher) {
        return new Builder(outbox, publisher);
    }

    /**
     * One poll. Returns how many events were published (and marked sent).
     *
     * @throws StoreException if the database failed; events already published are published again
     *                        by a later poll once their lease ran out (same message ids)
     */
    public int runOnce() {
        String owner = name + "#" + polls.incrementAndGet();
        List<List<OutboxMessage>> groups = outbox.lease(owner, maxAggregates, maxPerAggregate, lease);
        if (groups.isEmpty()) {
            return 0;
        }
        List<OutboxMessage> sent = new ArrayList<>();
        try {
            publish:
            for (List<OutboxMessage> group : groups) {
                for (OutboxMessage m : group) {
                    try {
                        publisher.publish(m);
                    } catch (InterruptedException e) {
                        // Closing: not the event's fault; leave it (and the rest) to the next poll.
                        Thread.currentThread().interrupt();
                        break publish;
                    } catch (Exception e) {
                        int attempts = m.attempts() + 1;
                        outbox.markFailed(m, backoff(attempts), e);
                        ListenerCalls.run("failed", () -> listener.failed(m, attempts, e));
                        continue publish;  // the aggregate's later events wait for this one
                    }
                    sent.add(m);
                    ListenerCalls.run("published", () -> listener.published(m));
                }
            }
        } finally {
            try {
                outbox.markSent(sent);
            } finally {
                outbox.release(owner);
            }
        }
        return sent.size();
    }

    /** Starts polling on a daemon thread. */
    public synchronized OutboxRelay start() {
        if (thread != null) {
            throw new IllegalStateException("relay " + name + " already started");
        }
        running = true;
        thread = new Thread(this::loop, "idem-outbox-relay-" + name);
        thread.setDaemon(true);
        thread.start();
        return this;
    }

    /** Stops polling after the current poll (waiting up to the lease for it); unpublished events stay for the next relay. */
    @Override
    public void close() {
        Thread worker;
        synchronized (this) {
            worker = thread;
            thread = null;
            running = false;
        }
        if (worker == null) {
            return;
        }
        synchronized (sleeper) {
            sleeper.notifyAll();
        }
        try {
            worker.join(Math.max(1000, lease.toMillis()));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    public String name() {
        return name;
    }

    private void loop() {
        long nextPurge = System.nanoTime() + purgeInterval.toNanos();
        while (running) {
            int published = 0;
            try {
                published = runOnce();
            } catch (RuntimeException e) {
                LOG.log(System.Logger.Level.WARNING, "outbox relay " + name + " poll failed; will retry", e);
            }
            if (System.nanoTime() - nextPurge >= 0) {
                purgeQuietly();
                nextPurge = System.nanoTime() + purgeInterval.toNanos();
            }
            if (published == 0) {
                synchronized (sleeper) {
                    if (running) {
                        try {
                            sleeper.wait(pollInterval.toMillis());
                        } catch (InterruptedException e) {
                            return;
                        }
                    }
                }
            }
        }
    }

    private void purgeQuietly() {
        try {
            int total = 0;
            for (int batch = 0; batch < MAX_PURGE_BATCHES; batch++) {
                int deleted = outbox.purge(purgeBatchSize);
                total += deleted;
                if (deleted < purgeBatchSize) {
                    break;
                }
            }
            if (total > 0) {
                int count = total;
                ListenerCalls.run("purged", () -> listener.purged(count));
            }
            if (outbox.retentionPartitions().isPresent()) {
                outbox.keptPartitions().ifPresent(kept -> ListenerCalls.run("partitionsKept", () -> listener.partitionsKept(kept)));
            }
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "outbox relay " + name + " purge failed; will retry", e);
        }
    }

    /** Exponential from the base, capped, with jitter over the upper half so retries of many events spread out. */
    Duration backoff(int attempts) {
        long cap = backoffCap.toMillis();
        long exp = backoffBase.toMillis() << Math.min(attempts - 1, 30);
        if (exp <= 0 || exp > cap) {
            exp = cap;
        }
        long half = exp / 2;
        return Duration.ofMillis(half + ThreadLocalRandom.current().nextLong(exp - half + 1));
    }

    @Override
    public String toString() {
        return "OutboxRelay[" + name + ", " + outbox + "]";
    }

    /** Settings of an {@link OutboxRelay}; each setter validates its value. */
    public static final class Builder {
        private final Outbox outbox;
        private final OutboxPublisher publisher;
        private String name = "relay-" + UUID.randomUUID().toString().substring(0, 8);
        private int maxAggregates = 100;
        private int maxPerAggregate = 50;
        private Duration pollInterval = Duration.ofMillis(500);
        private Duration lease = Duration.ofSeconds(30);
        private Duration backoffBase = Duration.ofSeconds(1);
        private Duration backoffCap = Duration.ofMinutes(5);
        private Duration purgeInterval = Duration.ofMinutes(1);
        private int purgeBatchSize = 500;
        private OutboxListener listener = OutboxListener.noop();

        private Builder(Outbox outbox, OutboxPublisher publisher) {
            this.outbox = Objects.requireNonNull(outbox, "outbox is null");
            this.publisher = Objects.requireNonNull(publisher, "publisher is null");
        }

        /** Names this relay in leases, its thread and logs: 1–100 visible ASCII characters. Default {@code relay-<random>}. */
        public Builder name(String name) {
            if (name == null || name.isEmpty() || name.length() > 100 || !name.chars().allMatch(ch -> ch > 0x20 && ch < 0x7f)) {
                throw new IllegalArgumentException("relay name must be 1-100 visible ASCII characters, was "
                        + (name == null ? "null" : "'" + name + "'"));
            }
            this.name = name;
            return this;
        }

        /** Aggregates leased per poll: 1–10000, default 100. */
        public Builder maxAggregates(int maxAggregates) {
            this.maxAggregates = Arguments.between("maxAggregates", maxAggregates, 1, 10_000);
            return this;
        }

        /** Events of one aggregate leased per poll: 1–10000, default 50. */
        public Builder maxPerAggregate(int maxPerAggregate) {
            this.maxPerAggregate = Arguments.between("maxPerAggregate", maxPerAggregate, 1, 10_000);
            return this;
        }

        /** Pause after a poll that published nothing. Default 500 ms. */
        public Builder pollInterval(Duration pollInterval) {
            this.pollInterval = Arguments.atLeastOneMilli("pollInterval", pollInterval);
            return this;
        }

        /**
         * How long a poll owns what it leased. Default 30 s. Must outlast one poll's publishing: past
         * it, another relay may publish the same events again.
         */
        public Builder lease(Duration lease) {
            this.lease = Arguments.atLeastOneMilli("lease", lease);
            return this;
        }

        /** Retry delay after the first failure of an event, doubling per failure up to {@code cap}. Default 1 s to 5 min. */
        public Builder backoff(Duration base, Duration cap) {
            Arguments.atLeastOneMilli("backoff base", base);
            Arguments.atLeastOneMilli("backoff cap", cap);
            if (cap.compareTo(base) < 0) {
                throw new IllegalArgumentException("backoff cap " + cap + " is below its base " + base);
            }
            this.backoffBase = base;
            this.backoffCap = cap;
            return this;
        }

        /** How often the started relay purges sent events past retention. Default 1 min. */
        public Builder purgeInterval(Duration purgeInterval) {
            this.purgeInterval = Arguments.atLeastOneMilli("purgeInterval", purgeInterval);
            return this;
        }

        /** Sent events deleted per statement: 1–100000, default 500. */
        public Builder purgeBatchSize(int purgeBatchSize) {
            this.purgeBatchSize = Arguments.between("purgeBatchSize", purgeBatchSize, 1, 100_000);
            return this;
        }

        /** Told of each event published, each publish that failed and each purge, for metrics. Default: nothing. */
        public Builder listener(OutboxListener listener) {
            this.listener = Objects.requireNonNull(listener, "listener is null");
            return this;
        }

        public OutboxRelay build() {
            return new OutboxRelay(this);
        }

    }
}
