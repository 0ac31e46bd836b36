package dev.idem.spring;

import dev.idem.Idem;
import dev.idem.IdemListener;
import dev.idem.InFlightPolicy;
import dev.idem.Sweeper;
import dev.idem.jdbc.JdbcIdempotencyStore;
import dev.idem.micrometer.MicrometerIdemListener;
import dev.idem.nats.kv.NatsKvIdempotencyStore;
import dev.idem.outbox.Outbox;
import dev.idem.redis.RedisIdempotencyStore;
import dev.idem.spi.IdempotencyStore;
import dev.idem.spring.internal.BootAutoConfigurations;
import dev.idem.spring.internal.IdemMigrations;
import dev.idem.spring.internal.MicrometerSweeperMeters;
import dev.idem.spring.internal.NatsKvStores;
import dev.idem.spring.internal.NoIdempotencyStoreException;
import dev.idem.spring.internal.OperatorGauges;
import dev.idem.spring.internal.RedisStores;
import dev.idem.spring.internal.SweeperLifecycle;
import dev.idem.spring.internal.SweeperMeters;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.stream.Collectors;
import javax.sql.DataSource;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.util.ClassUtils;

/**
 * idem's engine for a Spring Boot application: a {@link JdbcIdempotencyStore} on the application's
 * {@link DataSource} (dialect detected, table created as {@code idem.migrations} says),
 * or with {@code idem.store=redis} a {@link RedisIdempotencyStore} at {@code idem.redis.url},
 * the {@link Idem} engine from {@code idem.*} properties, a {@link Sweeper} started and stopped with
 * the context, and a Micrometer listener when a {@link MeterRegistry} bean exists.
 *
 * <p>Every bean backs off when the application defines one of the same type; {@code idem.enabled=false}
 * turns all of it off. The web part is {@link IdemWebAutoConfiguration}.
 */
@AutoConfiguration(afterName = {BootAutoConfigurations.DATA_SOURCE, BootAutoConfigurations.METRICS,
        BootAutoConfigurations.COMPOSITE_METER_REGISTRY, BootAutoConfigurations.SIMPLE_METRICS_EXPORT})
@ConditionalOnClass(Idem.class)
@ConditionalOnBooleanProperty(name = "idem.enabled", matchIfMissing = true)
@EnableConfigurationProperties(IdemProperties.class)
public class IdemAutoConfiguration {

    /**
     * The JDBC store on the application's DataSource ({@code idem.table-name}, {@code idem.coalesce-commits},
     * {@code idem.durability-check}); its table is created
     * or upgraded unless {@code idem.schema.initialize=false}.
     */
    @Bean
    @ConditionalOnMissingBean(IdempotencyStore.class)
    @ConditionalOnProperty(name = "idem.store", havingValue = "jdbc", matchIfMissing = true)
    @ConditionalOnSingleCandidate(DataSource.class)
    public JdbcIdempotencyStore idempotencyStore(DataSource dataSource, IdemProperties properties, IdemMigrations migrations) {
        JdbcIdempotencyStore.Builder builder = JdbcIdempotencyStore.builder(dataSource).tableName(properties.getTableName())
                .durabilityCheck(properties.getDurabilityCheck());
        switch (properties.getCoalesceCommits()) {
            case ON -> builder.coalesceCommits(true);
            case OFF -> builder.coalesceCommits(false);
            case AUTO -> { }  // the dialect's choice
        }
        IdemProperties.Jdbc.Partitions partitions = properties.getJdbc().getPartitions();
        if (partitions.getWidth() != null && !partitions.getWidth().isZero()) {
            builder.retentionByPartition(partitions.getWidth(), partitions.getHorizon());
        }
        JdbcIdempotencyStore store = builder.build();
        migrations.apply(() -> store.migrate(properties.getSchema().getRetryFor()));
        return store;
    }

    /** What creates idem's tables on the application's DataSource: {@code idem.migrations}. */
    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnSingleCandidate(DataSource.class)
    public IdemMigrations idemMigrations(DataSource dataSource, IdemProperties properties) {
        return new IdemMigrations(dataSource, properties);
    }

    /** The engine: {@code idem.lease}, {@code idem.retention}, {@code idem.in-flight}, {@code idem.max-response-bytes}, every {@link IdemListener} bean. */
    @Bean
    @ConditionalOnMissingBean
    public Idem idem(ObjectProvider<IdempotencyStore> store, ObjectProvider<IdemListener> listeners, IdemProperties properties) {
        IdempotencyStore chosen = store.getIfAvailable();
        if (chosen == null && properties.getStore() == IdemProperties.Store.REDIS) {
            throw new InvalidConfigurationPropertyValueException("idem.store", "redis",
                    "needs dev.idem:idem-redis (with io.lettuce:lettuce-core) on the class path, or an IdempotencyStore bean");
        }
        if (chosen == null && properties.getStore() == IdemProperties.Store.NATS_KV) {
            throw new InvalidConfigurationPropertyValueException("idem.store", "nats-kv",
                    "needs dev.idem:idem-nats (with io.nats:jnats) on the class path, or an IdempotencyStore bean");
        }
        if (chosen == null) {
            throw new NoIdempotencyStoreException();
        }
        InFlightPolicy inFlight = properties.getInFlight() == IdemProperties.InFlight.WAIT
                ? InFlightPolicy.waitUpTo(properties.getMaxWait())
                : InFlightPolicy.reject();
        return Idem.builder()
                .store(chosen)
                .lease(properties.getLease())
                .retention(properties.getRetention())
                .tombstones(properties.getTombstones())
                .inFlightPolicy(inFlight)
                .maxResponseBytes((int) properties.getMaxResponseBytes().toBytes())
                .listener(IdemListener.all(listeners.orderedStream().collect(Collectors.toList())))
                .build();
    }

    /**
     * Purges expired records of the engine's store every {@code idem.sweeper.interval}. Backs off
     * only for a bean of the same name: an application's own {@link Sweeper} (for an outbox, say)
     * runs beside it and never switches it off.
     */
    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean(name = "idemSweeper")
    @ConditionalOnBooleanProperty(name = "idem.sweeper.enabled", matchIfMissing = true)
    public Sweeper idemSweeper(Idem idem, IdemProperties properties) {
        return Sweeper.builder(idem.store())
                .name("records")
                .interval(properties.getSweeper().getInterval())
                .batchSize(properties.getSweeper().getBatchSize())
                .listener(idem.listener())
                .build();
    }

    /** Starts every {@link Sweeper} bean (idem's and the application's) with the context and stops them with it. */
    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnBooleanProperty(name = "idem.sweeper.enabled", matchIfMissing = true)
    SweeperLifecycle idemSweeperLifecycle(ObjectProvider<Sweeper> sweepers, ObjectProvider<SweeperMeters> meters) {
        return new SweeperLifecycle(sweepers, meters.getIfAvailable(() -> SweeperMeters.NONE));
    }

    /**
     * The Redis store, with {@code idem.store=redis} and idem-redis on the class path: at
     * {@code idem.redis.url}, or on the Redis Cluster at {@code idem.redis.cluster-nodes}. Its own
     * client and connections, closed with the context; startup fails if the server does not persist
     * records (unless {@code idem.redis.persistence-check=skip}), or if a master has fewer connected
     * replicas than {@code idem.redis.ack-replicas}.
     */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "dev.idem.redis.RedisIdempotencyStore")
    @ConditionalOnProperty(name = "idem.store", havingValue = "redis")
    static class Redis {

        @Bean(destroyMethod = "close")
        @ConditionalOnMissingBean(IdempotencyStore.class)
        RedisIdempotencyStore redisIdempotencyStore(IdemProperties properties) {
            return RedisStores.build(properties.getRedis());
        }
    }

    /**
     * The NATS JetStream key-value store, with {@code idem.store=nats-kv} and idem-nats on the class
     * path: a connection of its own to {@code idem.nats-kv.servers} (closed with the context) and the
     * bucket {@code idem.nats-kv.bucket}, created if missing; startup fails on a bucket that would not
     * survive the loss of a server (unless {@code idem.nats-kv.replication-check} says otherwise).
     */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "dev.idem.nats.kv.NatsKvIdempotencyStore")
    @ConditionalOnProperty(name = "idem.store", havingValue = "nats-kv")
    static class NatsKv {

        @Bean(destroyMethod = "close")
        @ConditionalOnMissingBean(IdempotencyStore.class)
        NatsKvStores.Connected idemNatsKvConnection(IdemProperties properties) {
            return NatsKvStores.connect(properties.getNatsKv());
        }

        @Bean(destroyMethod = "close")
        @ConditionalOnMissingBean(IdempotencyStore.class)
        NatsKvIdempotencyStore natsKvIdempotencyStore(NatsKvStores.Connected connection, IdemProperties properties) {
            return NatsKvStores.build(connection, properties.getNatsKv());
        }
    }

    /** Micrometer meters, when the application has a registry. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(MeterRegistry.class)
    static class Metrics {

        @Bean
        @ConditionalOnMissingBean
        @ConditionalOnBean(MeterRegistry.class)
        MicrometerIdemListener idemMicrometerListener(MeterRegistry registry) {
            return new MicrometerIdemListener(registry);
        }

        /**
         * The operators' gauges ({@link OperatorGauges}): the store's records past their lease, and each
         * outbox bean's backlog; registered once every singleton exists, so outboxes the application
         * declares are found too.
         */
        @Bean
        @ConditionalOnBean(MeterRegistry.class)
        SmartInitializingSingleton idemOperatorGauges(MeterRegistry registry, ObjectProvider<Idem> idem, ApplicationContext context) {
            // The engine is defined by the enclosing configuration, after this nested one is read: looked up, not a condition.
            return () -> {
                idem.ifAvailable(engine -> OperatorGauges.registerStore(registry, engine.store()));
                if (OutboxGauges.PRESENT) {
                    OutboxGauges.register(registry, context);
                }
            };
        }

        /** The outboxes' gauges, in a class of their own so that idem-outbox stays optional. */
        static final class OutboxGauges {
            static final boolean PRESENT = ClassUtils.isPresent("dev.idem.outbox.Outbox", OutboxGauges.class.getClassLoader());

            static void register(MeterRegistry registry, ApplicationContext context) {
                context.getBeansOfType(Outbox.class).forEach((name, outbox) -> OperatorGauges.registerOutbox(registry, name,
                        () -> outbox.backlog(1).pending(),
                        () -> outbox.backlog(1).oldestAge().map(Duration::toMillis).orElse(0L)));
            }
        }

        /** {@code idem.sweeper.*} meters for every sweeper the context runs. */
        @Bean
        @ConditionalOnMissingBean(SweeperMeters.class)
        @ConditionalOnBean(MeterRegistry.class)
        SweeperMeters idemSweeperMeters(MeterRegistry registry) {
            return new MicrometerSweeperMeters(registry);
        }
    }
}
