package dev.idem.docs.samples;

import com.zaxxer.hikari.HikariDataSource;
import dev.idem.Idem;
import dev.idem.jdbc.JdbcIdempotencyStore;
import dev.idem.jdbc.Sqlite;
import dev.idem.nats.kv.NatsKvIdempotencyStore;
import dev.idem.redis.RedisIdempotencyStore;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.nats.client.Connection;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/** The store samples of docs/stores.md (the JDBC store's is in {@link EngineSamples}). */
public final class StoreSamples {
    private StoreSamples() {
    }

    /** What the SQLite sample made: the pool (the caller closes it) and the store on it. */
    public record OnSqlite(HikariDataSource dataSource, JdbcIdempotencyStore store) {
    }

    public static OnSqlite sqlite() {
        // sample: stores-sqlite
        HikariDataSource dataSource = new HikariDataSource();
        dataSource.setJdbcUrl(Sqlite.url(Path.of("data/idem.db")));
        JdbcIdempotencyStore store = JdbcIdempotencyStore.builder(dataSource).build();
        // end sample
        return new OnSqlite(dataSource, store);
    }

    /** The store with coalesced commits switched on (the dialect's default is off except on SQLite). */
    public static JdbcIdempotencyStore coalesced(javax.sql.DataSource dataSource) {
        // sample: stores-coalesce
        JdbcIdempotencyStore store = JdbcIdempotencyStore.builder(dataSource).coalesceCommits(true).build();
        // end sample
        return store;
    }

    /** The store with retention by partition (PostgreSQL), migrated. */
    public static JdbcIdempotencyStore partitioned(javax.sql.DataSource dataSource) {
        // sample: stores-retention-by-partition
        JdbcIdempotencyStore store = JdbcIdempotencyStore.builder(dataSource)
                .retentionByPartition(Duration.ofHours(6))   // one partition per 6 h of expiry times
                .build();
        store.migrate();   // a new table is created partitioned, with its partitions
        // end sample
        return store;
    }

    /** What the Redis sample made; the caller closes the store and shuts the client down. */
    public record OnRedis(RedisClient client, RedisIdempotencyStore store, Idem idem) {
    }

    public static OnRedis redis(String redisUrl) {
        // sample: stores-redis
        RedisClient client = RedisClient.create(redisUrl);                             // Lettuce; e.g. "redis://127.0.0.1:6379"
        RedisIdempotencyStore store = RedisIdempotencyStore.builder(client).build();   // refuses a Redis that forgets keys on restart
        Idem idem = Idem.builder().store(store).build();                               // 30 s lease, 24 h retention
        // ... on shutdown: store.close() closes the connection it opened
        // end sample
        return new OnRedis(client, store, idem);
    }

    public static RedisIdempotencyStore redisCluster(String node1, String node2) {
        // sample: stores-redis-cluster
        RedisIdempotencyStore store = RedisIdempotencyStore.clusterBuilder(List.of(
                RedisURI.create(node1), RedisURI.create(node2)))   // any nodes, e.g. "redis://10.0.0.1:6379"; credentials, TLS, timeout apply to all
            .build();                                               // one replica acknowledges every write by default
        // end sample
        return store;
    }

    public static NatsKvIdempotencyStore natsKv(Connection nats) {
        // sample: stores-nats-kv
        NatsKvIdempotencyStore store = NatsKvIdempotencyStore.builder(nats)   // a jnats Connection to the cluster's servers
            .bucket("idem").createBucket(3, Duration.ofDays(2))              // if absent: file storage, 3 replicas, entries kept 2 days
            .build();                                                        // refuses fewer replicas than the cluster can give
        // end sample
        return store;
    }
}
