package dev.idem.bench;

import dev.idem.IdempotencyKey;
import dev.idem.nats.kv.NatsKvIdempotencyStore;
import dev.idem.spi.ClaimOutcome;
import dev.idem.spi.ClaimRequest;
import dev.idem.spi.RecordKey;
import dev.idem.testing.NatsCluster;
import io.nats.client.Connection;
import io.nats.client.KeyValue;
import io.nats.client.Nats;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The store part's NATS JetStream key-value backend ({@code nats-kv}): idem's claim + complete of new
 * keys through {@link NatsKvIdempotencyStore}, against the raw KV client doing the same two
 * operations — a create of the key, then an update at the revision it returned — with values of the
 * sizes idem's own entries have. On one node (the machine's server, a bucket of one replica) and on a
 * three-node cluster started for this run (a bucket of three replicas, every write on a majority
 * before it is acknowledged). At each thread count the raw line runs first, then idem's, each on a
 * fresh bucket.
 */
final class NatsKvStoreBench {
    static final String BACKEND = "nats-kv";
    private static final Duration MAX_AGE = Duration.ofDays(2);
    private static final String IDEM = "claim+complete (idem)";
    private static final String RAW = "create+update (raw KV client)";

    private final Options options;

    NatsKvStoreBench(Options options) {
        this.options = options;
    }

    static boolean wanted(Options options) {
        return options.backends.contains(BACKEND);
    }

    List<Row> run() throws Exception {
        List<Row> rows = new ArrayList<>();
        try (Connection single = connect(List.of(options.natsUrl))) {
            rows.addAll(lines(single, 1, "NATS KV, 1 node"));
        }
        try (NatsCluster cluster = NatsCluster.start(); Connection replicated = connect(cluster.clientUrls())) {
            rows.addAll(lines(replicated, 3, "NATS KV, 3 replicas"));
        }
        return rows;
    }

    private List<Row> lines(Connection connection, int replicas, String backend) throws Exception {
        int[] sizes = entrySizes(connection, replicas);
        List<Row> rows = new ArrayList<>();
        for (int threads : options.threads) {
            Bench.progress("store " + backend + ": raw create+update, " + threads + " threads");
            Measured raw = onFreshBucket(connection, replicas, bucket -> rawLine(connection, bucket, sizes, threads));
            Bench.progress("store " + backend + ": idem claim+complete, " + threads + " threads");
            Measured idem = onFreshBucket(connection, replicas, bucket -> idemLine(connection, bucket, replicas, threads));
            String note = String.format(Locale.ROOT, "values %d B then %d B, as idem's entries", sizes[0], sizes[1]);
            rows.add(new Row("store", RAW, backend, threads, raw, "ops/s", null, Double.NaN, note));
            rows.add(new Row("store", IDEM, backend, threads, idem, "ops/s", null, Double.NaN, null).compare("raw KV", raw));
        }
        return rows;
    }

    private Measured idemLine(Connection connection, String bucket, int replicas, int threads) throws Exception {
        NatsKvIdempotencyStore store = NatsKvIdempotencyStore.builder(connection).bucket(bucket).createBucket(replicas, MAX_AGE).build();
        try {
            return StoreBench.firstExecutions(store, threads, options.warmup, options.duration, new ArrayList<>());
        } finally {
            store.close();
        }
    }

    private Measured rawLine(Connection connection, String bucket, int[] sizes, int threads) throws Exception {
        KeyValue kv = connection.keyValue(bucket);
        byte[] claim = new byte[sizes[0]];
        byte[] completion = new byte[sizes[1]];
        return LoadLoop.run(threads, options.warmup, options.duration, t -> {
            SplittableRandom random = new SplittableRandom(ThreadLocalRandom.current().nextLong());
            return () -> {
                String key = "r." + Long.toHexString(random.nextLong());
                long revision = kv.create(key, claim);
                kv.update(key, completion, revision);
            };
        });
    }

    /** The sizes of idem's entry after a claim and after its completion, read back from the bucket. */
    private int[] entrySizes(Connection connection, int replicas) throws Exception {
        return onFreshBucket(connection, replicas, bucket -> {
            try (NatsKvIdempotencyStore store = NatsKvIdempotencyStore.builder(connection).bucket(bucket)
                    .createBucket(replicas, MAX_AGE).build()) {
                KeyValue kv = connection.keyValue(bucket);
                RecordKey id = new RecordKey(StoreBench.SCOPE, IdempotencyKey.of("sizing-1"));
                ClaimOutcome claim = store.claim(new ClaimRequest(id, StoreBench.FINGERPRINT, StoreBench.LEASE, StoreBench.RETENTION));
                if (!(claim instanceof ClaimOutcome.Acquired acquired)) {
                    throw new IllegalStateException("the sizing key did not acquire: " + claim);
                }
                String key = recordKey(kv);
                int claimed = kv.get(key).getValue().length;
                store.complete(id, acquired.token(), StoreBench.RESPONSE, StoreBench.RETENTION);
                return new int[] {claimed, kv.get(key).getValue().length};
            }
        });
    }

    /** The one record's key in a bucket that holds one record (and the store's clock entry). */
    private static String recordKey(KeyValue kv) throws Exception {
        for (String key : kv.keys()) {
            if (key.startsWith("r.")) {
                return key;
            }
        }
        throw new IllegalStateException("no record in the sizing bucket");
    }

    @FunctionalInterface
    private interface OnBucket<T> {
        T run(String bucket) throws Exception;
    }

    /**
     * Runs {@code body} on a bucket made for it, deleted afterwards: created by the store's builder,
     * so the raw line writes to a bucket with exactly the settings idem's lines use.
     */
    private static <T> T onFreshBucket(Connection connection, int replicas, OnBucket<T> body) throws Exception {
        String bucket = "idem-bench-" + UUID.randomUUID().toString().substring(0, 8);
        NatsKvIdempotencyStore.builder(connection).bucket(bucket).createBucket(replicas, MAX_AGE).build().close();
        try {
            return body.run(bucket);
        } finally {
            try {
                connection.keyValueManagement().delete(bucket);
            } catch (Exception e) {
                Bench.progress("nats-kv: bucket " + bucket + " not deleted: " + e.getMessage());
            }
        }
    }

    private static Connection connect(List<String> urls) throws Exception {
        io.nats.client.Options settings = new io.nats.client.Options.Builder().servers(urls.toArray(new String[0]))
                .connectionName("idem-bench").connectionTimeout(Duration.ofSeconds(5)).maxReconnects(-1)
                .reconnectWait(Duration.ofMillis(100)).errorListener(new io.nats.client.ErrorListener() { }).build();
        return Nats.connect(settings);
    }
}
