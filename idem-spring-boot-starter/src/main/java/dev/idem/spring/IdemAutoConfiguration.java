package dev.idem.spring;

import dev.idem.Idem;
import dev.idem.IdemListener;
import dev.idem.InFlightPolicy;
import dev.idem.Sweeper;
import dev.idem.jdbc.JdbcIdempotencyStore;
import dev.idem.redis.RedisIdempotencyStore;
import dev.idem.spi.IdempotencyStore;
import dev.idem.spring.internal.CompositeIdemListener;
import dev.idem.spring.internal.NoIdempotencyStoreException;
import dev.idem.spring.internal.RedisStores;
import dev.idem.spring.internal.SweeperLifecycle;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.stream.Collectors;
import javax.sql.DataSource;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * idem's engine for a Spring Boot application: a {@link JdbcIdempotencyStore} on the application's
 * {@link DataSource} (dialect detected, table created unless {@code idem.schema.initialize=false}),
 * or with {@code idem.store=redis} a {@link RedisIdempotencyStore} at {@code idem.redis.url},
 * the {@link Idem} engine from {@code idem.*} properties, a {@link Sweeper} started and stopped with
 * the context, and a Micrometer listener when a {@link MeterRegistry} bean exists.
 *
 * <p>Every bean backs off when the application defines one of the same type; {@code idem.enabled=false}
 * turns all of it off. The web part is {@link IdemWebAutoConfiguration}.
 */
@AutoConfiguration(afterName = {
        "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration",
        "org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration",
        "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration",
        "org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration"})
@ConditionalOnClass(Idem.class)
@ConditionalOnBooleanProperty(name = "idem.enabled", matchIfMissing = true)
@EnableConfigurationProperties(IdemProperties.class)
public class IdemAutoConfiguration {

    /**
     * The JDBC store on the application's DataSource ({@code idem.table-name}, {@code idem.coalesce-commits}); its table is created
     * or upgraded unless {@code idem.schema.initialize=false}.
     */
    @Bean
    @ConditionalOnMissingBean(IdempotencyStore.class)
    @ConditionalOnProperty(name = "idem.store", havingValue = "jdbc", matchIfMissing = true)
    @ConditionalOnSingleCandidate(DataSource.class)
    public JdbcIdempotencyStore idempotencyStore(DataSource dataSource, IdemProperties properties) {
        JdbcIdempotencyStore.Builder builder = JdbcIdempotencyStore.builder(dataSource).tableName(properties.getTableName());
        switch (properties.getCoalesceCommits()) {
            case ON -> builder.coalesceCommits(true);
            case OFF -> builder.coalesceCommits(false);
            case AUTO -> { }  // the dialect's choice
        }
        JdbcIdempotencyStore store = builder.build();
        if (properties.getSchema().isInitialize()) {
            store.migrate(properties.getSchema().getRetryFor());
        }
        return store;
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
                .inFlightPolicy(inFlight)
                .maxResponseBytes((int) properties.getMaxResponseBytes().toBytes())
                .listener(CompositeIdemListener.of(listeners.orderedStream().collect(Collectors.toList())))
                .build();
    }

    /** Purges expired records of the engine's store every {@code idem.sweeper.interval}. */
    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    @ConditionalOnBooleanProperty(name = "idem.sweeper.enabled", matchIfMissing = true)
    public Sweeper idemSweeper(Idem idem, IdemProperties properties) {
        return Sweeper.builder(idem.store())
                .interval(properties.getSweeper().getInterval())
                .batchSize(properties.getSweeper().getBatchSize())
                .listener(idem.listener())
                .build();
    }

    /** Starts the {@link Sweeper} bean (the application's own, if it defines one) with the context and stops it with it. */
    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnBean(Sweeper.class)
    @ConditionalOnBooleanProperty(name = "idem.sweeper.enabled", matchIfMissing = true)
    SweeperLifecycle idemSweeperLifecycle(Sweeper sweeper) {
        return new SweeperLifecycle(sweeper);
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
    }
}
