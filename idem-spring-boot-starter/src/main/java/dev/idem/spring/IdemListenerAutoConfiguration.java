package dev.idem.spring;

import dev.idem.Sweeper;
import dev.idem.inbox.Inbox;
import dev.idem.spring.internal.BootAutoConfigurations;
import dev.idem.spring.internal.IdemMigrations;
import dev.idem.spring.internal.InstantiatedPurgeables;
import dev.idem.spring.internal.listener.IdempotentListenerPostProcessor;
import dev.idem.spring.internal.listener.ListenerBroker;
import dev.idem.spring.internal.listener.ListenerMeters;
import dev.idem.spring.internal.listener.ListenerTracing;
import dev.idem.spring.internal.listener.MicrometerListenerMeters;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.context.annotation.Configuration;
import dev.idem.spring.internal.listener.kafka.KafkaListenerBroker;
import dev.idem.spring.internal.listener.rabbit.RabbitListenerBroker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Lazy;
import org.springframework.context.annotation.Role;
import org.springframework.jdbc.datasource.DataSourceUtils;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.util.ClassUtils;

/**
 * {@link IdempotentListener} methods: an {@link Inbox} on the application's {@link DataSource}
 * ({@code idem.inbox.*}; its tables created unless {@code idem.schema.initialize=false}) unless the
 * application defines one, and the post-processor that advises the annotated {@code @KafkaListener}
 * (with spring-kafka and idem-kafka on the class path) and {@code @RabbitListener} (with spring-rabbit)
 * methods. Needs spring-jdbc, whose transaction manager the methods run in.
 */
@AutoConfiguration(after = IdemAutoConfiguration.class, afterName = {
        BootAutoConfigurations.DATA_SOURCE, BootAutoConfigurations.DATA_SOURCE_TRANSACTION_MANAGER,
        BootAutoConfigurations.KAFKA, BootAutoConfigurations.RABBIT})
@ConditionalOnClass({Inbox.class, PlatformTransactionManager.class, DataSourceUtils.class})
@ConditionalOnBooleanProperty(name = "idem.enabled", matchIfMissing = true)
@EnableConfigurationProperties({IdemInboxProperties.class, IdemProperties.class})
public class IdemListenerAutoConfiguration {

    /**
     * The inbox on the application's DataSource ({@code idem.durability-check}), its table partitioned by expiry if
     * {@code idem.inbox.partitions.width} is set; its tables are created or upgraded as {@code idem.migrations} says. Lazy: an application without idempotent listeners gets no tables.
     */
    @Bean
    @Lazy
    @ConditionalOnMissingBean
    @ConditionalOnSingleCandidate(DataSource.class)
    public Inbox idemInbox(DataSource dataSource, IdemInboxProperties inbox, IdemProperties properties,
                           ObjectProvider<IdemMigrations> migrations) {
        Inbox.Builder builder = Inbox.builder(dataSource).maxAttempts(inbox.getMaxAttempts()).retention(inbox.getRetention())
                .quarantineError(inbox.getQuarantineError()).durabilityCheck(properties.getDurabilityCheck());
        Duration width = inbox.getPartitions().getWidth();
        if (width != null && !width.isZero()) {
            builder.retentionByPartition(width);
        }
        Inbox built = builder.build();
        migrations.getIfAvailable(() -> new IdemMigrations(dataSource, properties)).apply(built::migrate);
        return built;
    }

    /**
     * Purges the inbox's expired rows (processed and dropped messages, attempt counters; never a
     * quarantined message) every {@code idem.sweeper.interval}: of every {@link Inbox} bean the
     * context created, idem's or the application's, started by idem's sweeper lifecycle.
     */
    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean(name = "idemInboxSweeper")
    @ConditionalOnBooleanProperty(name = "idem.sweeper.enabled", matchIfMissing = true)
    public Sweeper idemInboxSweeper(ConfigurableListableBeanFactory beans, IdemProperties properties) {
        return Sweeper.builder(new InstantiatedPurgeables(beans, Inbox.class))
                .name("inbox")
                .interval(properties.getSweeper().getInterval())
                .batchSize(properties.getSweeper().getBatchSize())
                .build();
    }

    /** Advises the {@link IdempotentListener} methods; static, as a post-processor must be. */
    @Bean
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    @ConditionalOnMissingBean
    static IdempotentListenerPostProcessor idempotentListenerPostProcessor(ObjectProvider<Inbox> inbox,
                                                                           ObjectProvider<PlatformTransactionManager> managers,
                                                                           ObjectProvider<ListenerTracing> tracing,
                                                                           ObjectProvider<ListenerMeters> meters) {
        ClassLoader loader = IdemListenerAutoConfiguration.class.getClassLoader();
        List<ListenerBroker> brokers = new ArrayList<>();
        if (ClassUtils.isPresent("org.springframework.kafka.annotation.KafkaListener", loader)
                && ClassUtils.isPresent("dev.idem.kafka.KafkaMessageIds", loader)) {
            brokers.add(new KafkaListenerBroker());
        }
        if (ClassUtils.isPresent("org.springframework.amqp.rabbit.annotation.RabbitListener", loader)) {
            brokers.add(new RabbitListenerBroker());
        }
        return new IdempotentListenerPostProcessor(brokers, inbox, managers, tracing, meters);
    }

    /** {@code idem.listener.deliveries} by consumer and outcome, when the application has a Micrometer registry. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(MeterRegistry.class)
    static class Metrics {

        @Bean
        @ConditionalOnMissingBean(ListenerMeters.class)
        @ConditionalOnBean(MeterRegistry.class)
        ListenerMeters idemListenerMeters(MeterRegistry registry) {
            return new MicrometerListenerMeters(registry);
        }
    }
}
