package dev.idem.spring;

import static dev.idem.spring.AutoConfigurationTest.rootCause;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.idem.Fingerprint;
import dev.idem.Idem;
import dev.idem.IdempotencyKey;
import dev.idem.Outcome;
import dev.idem.Scope;
import dev.idem.StoredResponse;
import dev.idem.Sweeper;
import dev.idem.jdbc.JdbcIdempotencyStore;
import dev.idem.redis.RedisIdempotencyStore;
import dev.idem.testing.RealServices;
import dev.idem.testing.RedisCluster;
import dev.idem.testing.TestDatabase;
import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import java.util.List;
import java.nio.charset.StandardCharsets;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.jdbc.datasource.DelegatingDataSource;

/** {@code idem.store=redis}: the starter builds a Redis store at {@code idem.redis.url}, on the real Redis. */
class RedisStoreAutoConfigurationTest {
    private static final AutoConfigurations IDEM = AutoConfigurations.of(IdemAutoConfiguration.class);

    private final String prefix = "idem-starter-test-" + UUID.randomUUID().toString().substring(0, 8) + ":";
    private String url;

    @BeforeEach
    void findRedis() {
        url = RealServices.redisUri();
    }

    @AfterEach
    void deleteKeys() {
        if (url == null) {
            return;
        }
        RedisClient client = RedisClient.create(url);
        try (StatefulRedisConnection<String, String> c = client.connect()) {
            ScanArgs mine = ScanArgs.Builder.matches(prefix + "*").limit(1000);
            KeyScanCursor<String> cursor = c.sync().scan(mine);
            cursor.getKeys().forEach(c.sync()::del);
            while (!cursor.isFinished()) {
                cursor = c.sync().scan(cursor, mine);
                cursor.getKeys().forEach(c.sync()::del);
            }
        } finally {
            client.shutdown();
        }
    }

    /**
     * The machine's Redis persists nothing, so these contexts skip the persistence check; the default
     * is tested against it below.
     */
    private ApplicationContextRunner redis() {
        return new ApplicationContextRunner().withConfiguration(IDEM)
                .withPropertyValues("idem.store=redis", "idem.redis.url=" + url, "idem.redis.key-prefix=" + prefix,
                        "idem.redis.persistence-check=skip");
    }

    @Test
    void idemStoreRedisBuildsTheRedisStoreEvenBesideADataSource() {
        TestDatabase db = Backend.SQLITE.open();
        try {
            redis().withBean(DataSource.class, () -> new DelegatingDataSource(db.dataSource())).run(context -> {
                assertThat(context).hasNotFailed().hasSingleBean(RedisIdempotencyStore.class).doesNotHaveBean(JdbcIdempotencyStore.class);
                RedisIdempotencyStore store = context.getBean(RedisIdempotencyStore.class);
                assertThat(store.keyPrefix()).isEqualTo(prefix);
                Idem idem = context.getBean(Idem.class);
                assertThat(idem.store()).isSameAs(store);
                assertThat(context).hasSingleBean(Sweeper.class);

                AtomicInteger runs = new AtomicInteger();
                Scope scope = Scope.of("alice", "POST /payments");
                IdempotencyKey key = IdempotencyKey.of("starter-" + UUID.randomUUID());
                Fingerprint fingerprint = Fingerprint.builder().part("body", "{}").build();
                StoredResponse paid = StoredResponse.of(201, "paid".getBytes(StandardCharsets.UTF_8));
                for (int i = 0; i < 3; i++) {
                    idem.execute(scope, key, fingerprint, run -> {
                        runs.incrementAndGet();
                        return paid;
                    });
                }
                assertThat(runs).hasValue(1);
                assertThat(idem.execute(scope, key, fingerprint, run -> paid)).isEqualTo(new Outcome.Replayed(paid));
            });
        } finally {
            db.close();
        }
    }

    @Test
    void byDefaultStartupRefusesARedisThatPersistsNothing() {
        RedisClient client = RedisClient.create(url);
        try (StatefulRedisConnection<String, String> c = client.connect()) {
            assumeTrue("no".equals(c.sync().configGet("appendonly").get("appendonly")), "needs a Redis with appendonly no, as the machine's runs");
        } finally {
            client.shutdown();
        }
        new ApplicationContextRunner().withConfiguration(IDEM)
                .withPropertyValues("idem.store=redis", "idem.redis.url=" + url, "idem.redis.key-prefix=" + prefix)
                .run(context -> {
                    assertThat(context).hasFailed();
                    IllegalStateException refusal = rootCause(context.getStartupFailure(), IllegalStateException.class);
                    assertThat(refusal).hasMessageContaining("appendonly is 'no'").hasMessageContaining("'appendonly yes'");
                });
    }

    @Test
    void badRedisSettingsFailStartupNamingTheProperty() {
        redis().withPropertyValues("idem.redis.key-prefix=app{1}:").run(context -> {
            InvalidConfigurationPropertyValueException invalid = rootCause(context.getStartupFailure(), InvalidConfigurationPropertyValueException.class);
            assertThat(invalid.getName()).isEqualTo("idem.redis.key-prefix");
            assertThat(invalid.getReason()).contains("brace");
        });
        redis().withPropertyValues("idem.redis.url=http://user:s3cret@example:6379").run(context -> {
            InvalidConfigurationPropertyValueException invalid = rootCause(context.getStartupFailure(), InvalidConfigurationPropertyValueException.class);
            assertThat(invalid.getName()).isEqualTo("idem.redis.url");
            assertThat(invalid.getMessage()).doesNotContain("s3cret");
        });
    }

    /** {@code idem.redis.cluster-nodes}: a store on a real Redis Cluster, one replica acknowledging each write by default. */
    @Test
    void clusterNodesBuildAClusterStoreWithReplicaAcknowledgement() {
        RedisCluster cluster = RedisCluster.shared();
        String nodes = String.join(",", cluster.nodeUris());
        try {
            new ApplicationContextRunner().withConfiguration(IDEM)
                    .withPropertyValues("idem.store=redis", "idem.redis.cluster-nodes=" + nodes, "idem.redis.key-prefix=" + prefix)
                    .run(context -> {
                        assertThat(context).hasNotFailed().hasSingleBean(RedisIdempotencyStore.class);
                        RedisIdempotencyStore store = context.getBean(RedisIdempotencyStore.class);
                        assertThat(store.cluster()).isTrue();
                        assertThat(store.acknowledgingReplicas()).isEqualTo(1);
                        Idem idem = context.getBean(Idem.class);
                        AtomicInteger runs = new AtomicInteger();
                        StoredResponse paid = StoredResponse.of(201, "paid".getBytes(StandardCharsets.UTF_8));
                        Fingerprint fingerprint = Fingerprint.builder().part("body", "{}").build();
                        for (int i = 0; i < 20; i++) {
                            IdempotencyKey key = IdempotencyKey.of("cluster-" + i);
                            for (int attempt = 0; attempt < 2; attempt++) {
                                idem.execute(Scope.of("alice", "POST /payments"), key, fingerprint, run -> {
                                    runs.incrementAndGet();
                                    return paid;
                                });
                            }
                        }
                        assertThat(runs).hasValue(20);
                    });
            new ApplicationContextRunner().withConfiguration(IDEM)
                    .withPropertyValues("idem.store=redis", "idem.redis.cluster-nodes=" + nodes, "idem.redis.key-prefix=" + prefix,
                            "idem.redis.ack-replicas=off")
                    .run(context -> assertThat(context.getBean(RedisIdempotencyStore.class).acknowledgingReplicas()).isZero());
            new ApplicationContextRunner().withConfiguration(IDEM)
                    .withPropertyValues("idem.store=redis", "idem.redis.cluster-nodes=" + nodes, "idem.redis.key-prefix=" + prefix,
                            "idem.redis.ack-replicas=2")
                    .run(context -> assertThat(rootCause(context.getStartupFailure(), IllegalStateException.class))
                            .hasMessageContaining("replica acknowledgement needs 2 replica(s) per master"));
        } finally {
            RedisClusterClient client = RedisClusterClient.create(cluster.nodeUris().stream().map(io.lettuce.core.RedisURI::create).toList());
            try (StatefulRedisClusterConnection<String, String> c = client.connect()) {
                List<String> keys = c.sync().keys(prefix + "*");
                if (!keys.isEmpty()) {
                    c.sync().del(keys.toArray(new String[0]));
                }
            } finally {
                client.shutdown();
            }
        }
    }

    @Test
    void badClusterSettingsFailStartupNamingThePropertyWithoutSecrets() {
        redis().withPropertyValues("idem.redis.cluster-nodes=redis://127.0.0.1:7101,http://user:s3cret@example:6379").run(context -> {
            InvalidConfigurationPropertyValueException invalid = rootCause(context.getStartupFailure(), InvalidConfigurationPropertyValueException.class);
            assertThat(invalid.getName()).isEqualTo("idem.redis.cluster-nodes");
            assertThat(invalid.getMessage()).doesNotContain("s3cret");
        });
        redis().withPropertyValues("idem.redis.cluster-nodes=redis://user:s3cret@127.0.0.1:7101/2").run(context -> {
            InvalidConfigurationPropertyValueException invalid = rootCause(context.getStartupFailure(), InvalidConfigurationPropertyValueException.class);
            assertThat(invalid.getName()).isEqualTo("idem.redis.cluster-nodes");
            assertThat(invalid.getReason()).contains("only database 0");
            assertThat(invalid.getMessage()).doesNotContain("s3cret");
        });
        redis().withPropertyValues("idem.redis.ack-replicas=many").run(context -> {
            InvalidConfigurationPropertyValueException invalid = rootCause(context.getStartupFailure(), InvalidConfigurationPropertyValueException.class);
            assertThat(invalid.getName()).isEqualTo("idem.redis.ack-replicas");
            assertThat(invalid.getReason()).contains("'auto'");
        });
    }

    @Test
    void idemStoreRedisWithoutIdemRedisFailsStartupNamingIt() {
        redis().withClassLoader(new FilteredClassLoader(RedisIdempotencyStore.class)).run(context -> {
            InvalidConfigurationPropertyValueException invalid = rootCause(context.getStartupFailure(), InvalidConfigurationPropertyValueException.class);
            assertThat(invalid.getName()).isEqualTo("idem.store");
            assertThat(invalid.getReason()).contains("dev.idem:idem-redis");
        });
    }
}
