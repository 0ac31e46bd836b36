package dev.idem.demo.payments;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.idem.jdbc.JdbcIdempotencyStore;
import dev.idem.jdbc.Sqlite;
import dev.idem.spi.IdempotencyStore;
import dev.idem.spring.IdemProperties;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Lazy;
import org.springframework.core.Ordered;
import org.springframework.core.env.Environment;
import org.springframework.web.servlet.config.annotation.InterceptorRegistry;
import org.springframework.web.servlet.config.annotation.WebMvcConfigurer;
import tools.jackson.databind.json.JsonMapper;

/**
 * The service's beans. The starter does the rest: it takes the {@link IdempotencyStore} below (the
 * application's own, so its auto-configured one backs off), builds {@code Idem} from {@code idem.*}
 * (a 2 s lease here, so a retry takes over from a crashed process quickly), and registers the filter
 * that makes {@code @Idempotent} endpoints idempotent.
 */
@Configuration(proxyBeanMethods = false)
public class PaymentsConfiguration {
    private static final Logger LOG = LoggerFactory.getLogger(PaymentsConfiguration.class);

    @Bean
    DemoSettings demoSettings(Environment environment) {
        return DemoSettings.from(environment);
    }

    /** SQLite under {@code --data-dir} (WAL, synchronous=FULL: {@link Sqlite#url}), or PostgreSQL by {@code --db}. A small pool. */
    @Bean(destroyMethod = "close")
    HikariDataSource dataSource(DemoSettings settings) {
        HikariConfig config = new HikariConfig();
        config.setPoolName("payments");
        if (settings.db() == null) {
            try {
                Files.createDirectories(settings.dataDir());
            } catch (IOException e) {
                throw new UncheckedIOException("cannot create --data-dir " + settings.dataDir(), e);
            }
            config.setJdbcUrl(Sqlite.url(settings.sqliteFile()));
            config.setMaximumPoolSize(4);
        } else {
            config.setJdbcUrl(settings.db());
            config.setMaximumPoolSize(6);
        }
        config.setMinimumIdle(1);
        // No connection is tried while the pool is built: an instance starting while the database is out
        // of reach would exit here. The migrations below wait for the database (idem.schema.retry-for).
        config.setInitializationFailTimeout(-1);
        return new HikariDataSource(config);
    }

    /** The engine's events in this process, for {@code GET /internal/counters}; the starter composes it with its other listeners. */
    @Bean
    ServiceCounters serviceCounters() {
        return new ServiceCounters();
    }

    /** The pool-pressure fault: on with {@code --fault.pool-pressure=true}, or for a while by {@code POST /internal/faults/pool-pressure}. */
    @Bean
    PoolPressure poolPressure(DataSource dataSource, ServiceCounters counters, Environment environment) {
        return new PoolPressure(dataSource, counters, environment.getProperty("fault.pool-pressure", Boolean.class, false));
    }

    /** Pool pressure applies to the payment handler only. */
    @Bean
    WebMvcConfigurer poolPressureInterceptor(PoolPressure poolPressure) {
        return new WebMvcConfigurer() {
            @Override
            public void addInterceptors(InterceptorRegistry registry) {
                registry.addInterceptor(poolPressure).addPathPatterns("/payments");
            }
        };
    }

    @Bean
    CrashPoints crashPoints(DemoSettings settings) {
        return new CrashPoints(settings.crashAt(), settings.dataDir());
    }

    /**
     * The idempotency store: idem's JDBC store on the service's database — or, in the deliberately
     * broken {@code memory-store} variant, a map in this JVM that a restart empties.
     */
    @Bean
    IdempotencyStore idempotencyStore(DemoSettings settings, DataSource dataSource, IdemProperties idem, CrashPoints crashes,
                                      ServiceCounters counters) {
        IdempotencyStore store;
        if (settings.variant() == Variant.MEMORY_STORE) {
            LOG.warn("deliberately broken: idempotency keys are kept in memory; a restart forgets them all (variant memory-store)");
            store = new ForgetfulMemoryStore();
        } else {
            JdbcIdempotencyStore.Builder builder = JdbcIdempotencyStore.builder(dataSource).tableName(idem.getTableName());
            if (settings.coalesce() != null) {
                builder.coalesceCommits(settings.coalesce());
            }
            JdbcIdempotencyStore jdbc = builder.build();
            if (idem.getSchema().isInitialize()) {
                jdbc.migrate(idem.getSchema().getRetryFor());
            }
            LOG.info("coalesced commits {} ({})", jdbc.coalescesCommits() ? "on" : "off",
                    settings.coalesce() == null ? "the dialect's default" : "--coalesce");
            counters.coalescesCommits(jdbc.coalescesCommits());
            store = jdbc;
        }
        return crashes.armed(CrashPoint.AFTER_COMPLETION) ? new CrashAfterCompletionStore(store, crashes) : store;
    }

    /** Payment events through the outbox to Kafka, when {@code --events.kafka} names a broker; else none. */
    @Bean(destroyMethod = "close")
    PaymentEvents paymentEvents(DemoSettings settings, DataSource dataSource, JsonMapper json) {
        return settings.eventsKafka() == null ? PaymentEvents.disabled()
                : PaymentEvents.start(dataSource, settings.eventsKafka(), settings.eventsTopic(), json);
    }

    @Bean
    PaymentRepository paymentRepository(DataSource dataSource, PaymentEvents events) {
        PaymentRepository repository = new PaymentRepository(dataSource, events);
        repository.createTable();
        return repository;
    }

    /** Creates its totals tables at its first use (the context is lazy): the payment table comes first. */
    @Bean
    Revenue revenue(DataSource dataSource, PaymentRepository payments) {
        Revenue revenue = new Revenue(dataSource);
        revenue.migrate();
        return revenue;
    }

    @Bean
    CardGateway cardGateway(DemoSettings settings, JsonMapper json) {
        return new HttpCardGateway(settings.gatewayUrl(), settings.gatewayTimeout(), json);
    }

    /** Made at startup: in the memory-store variant its warning belongs in the log before any request. */
    @Bean
    @Lazy(false)
    PaymentProcessor paymentProcessor(PaymentRepository payments, CardGateway gateway, CrashPoints crashes, JsonMapper json,
                                      DemoSettings settings) {
        return new PaymentProcessor(payments, gateway, crashes, json, settings.variant() == Variant.MEMORY_STORE);
    }

    /** Bodies up to {@code idem.max-request-bytes}, with or without a key (the filter applies the same cap to keyed ones). */
    @Bean
    RequestBodies requestBodies(IdemProperties idem) {
        return new RequestBodies((int) idem.getMaxRequestBytes().toBytes());
    }

    /** Only for {@code --crash-at=before-response-written}: outside idem's filter, so it sees the stored answer go out. */
    @Bean
    FilterRegistrationBean<CrashBeforeResponseFilter> crashBeforeResponseFilter(CrashPoints crashes, IdemProperties idem) {
        FilterRegistrationBean<CrashBeforeResponseFilter> registration = new FilterRegistrationBean<>(new CrashBeforeResponseFilter(crashes));
        registration.setName("crashBeforeResponse");
        registration.setOrder(Math.max(Ordered.HIGHEST_PRECEDENCE, idem.getFilter().getOrder() - 1));
        registration.addUrlPatterns("/payments");
        registration.setEnabled(crashes.armed(CrashPoint.BEFORE_RESPONSE_WRITTEN));
        return registration;
    }
}
