package dev.idem.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.Fingerprint;
import dev.idem.Idem;
import dev.idem.IdemListener;
import dev.idem.IdempotencyKey;
import dev.idem.Scope;
import dev.idem.StoredResponse;
import dev.idem.Sweeper;
import dev.idem.jdbc.Dialect;
import dev.idem.jdbc.JdbcIdempotencyStore;
import dev.idem.micrometer.MicrometerIdemListener;
import dev.idem.servlet.IdempotencyFilter;
import dev.idem.servlet.RequestFingerprinter;
import dev.idem.servlet.RoutePolicy;
import dev.idem.servlet.RoutePolicyResolver;
import dev.idem.servlet.ScopeResolver;
import dev.idem.spi.ClaimOutcome;
import dev.idem.spi.ClaimRequest;
import dev.idem.spi.IdempotencyStore;
import dev.idem.spi.RecordKey;
import dev.idem.spring.internal.HandlerMappingRoutePolicyResolver;
import dev.idem.spring.internal.NoIdempotencyStoreException;
import dev.idem.spring.internal.NoIdempotencyStoreFailureAnalyzer;
import dev.idem.spring.internal.SweeperLifecycle;
import dev.idem.testing.NonDurableMemoryStore;
import dev.idem.testing.RealServices;
import dev.idem.testing.TestDatabase;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.datasource.DelegatingDataSource;
import org.springframework.util.unit.DataSize;
import org.springframework.web.servlet.DispatcherServlet;

/**
 * The auto-configuration in isolation: which beans it makes, how they back off for the application's
 * own, what the properties bind to and how bad values fail startup, the schema, the sweeper's
 * lifecycle and the meters. Databases are real (SQLite, and PostgreSQL where the dialect matters).
 */
class AutoConfigurationTest {
    private static final AutoConfigurations IDEM = AutoConfigurations.of(IdemAutoConfiguration.class, IdemWebAutoConfiguration.class);

    private TestDatabase db;

    @BeforeEach
    void openDatabase() {
        db = Backend.SQLITE.open();
    }

    @AfterEach
    void closeDatabase() {
        db.close();
    }

    private WebApplicationContextRunner web() {
        return new WebApplicationContextRunner().withConfiguration(IDEM);
    }

    /** The application's DataSource as a bean the context will not close (the test's pool outlives it). */
    private static DataSource unclosable(TestDatabase database) {
        return new DelegatingDataSource(database.dataSource());
    }

    // ---- what it makes ----------------------------------------------------------------------

    @Test
    void fromADataSourceItMakesTheStoreEngineFilterAndSweeper() {
        web().withBean(DataSource.class, () -> unclosable(db)).run(context -> {
            assertThat(context).hasNotFailed();
            JdbcIdempotencyStore store = context.getBean(JdbcIdempotencyStore.class);
            assertThat(store.dialect()).as("detected").isEqualTo(Dialect.SQLITE);
            assertThat(store.tableName()).isEqualTo("idem_record");
            assertThat(context.getBean(Idem.class).store()).isSameAs(store);
            assertThat(context).hasSingleBean(Sweeper.class);
            assertThat(context.getBean(SweeperLifecycle.class).isRunning()).as("started with the context").isTrue();
            assertThat(context.getBean(RoutePolicyResolver.class)).isInstanceOf(HandlerMappingRoutePolicyResolver.class);
            assertThat(context).hasSingleBean(ScopeResolver.class).hasSingleBean(RequestFingerprinter.class);
            assertThat(context).doesNotHaveBean(MicrometerIdemListener.class);

            FilterRegistrationBean<?> registration = context.getBean("idempotencyFilterRegistration", FilterRegistrationBean.class);
            assertThat(registration.getFilter()).isInstanceOf(IdempotencyFilter.class);
            assertThat(registration.getOrder()).as("early, after Spring Security's -100").isEqualTo(-90);
            assertThat(registration.getUrlPatterns()).containsExactly("/*");
        });
    }

    @Test
    void withoutAWebApplicationOnlyTheEngineIsConfigured() {
        new ApplicationContextRunner().withConfiguration(IDEM).withBean(DataSource.class, () -> unclosable(db)).run(context -> {
            assertThat(context).hasSingleBean(Idem.class).hasSingleBean(JdbcIdempotencyStore.class).hasSingleBean(Sweeper.class);
            assertThat(context).doesNotHaveBean(FilterRegistrationBean.class).doesNotHaveBean(RoutePolicyResolver.class);
        });
    }

    @Test
    void micrometerAndSpringMvcAreOptional() {
        web().withClassLoader(new FilteredClassLoader(MeterRegistry.class))
                .withBean(DataSource.class, () -> unclosable(db)).run(context -> {
                    assertThat(context).hasNotFailed().hasSingleBean(Idem.class).hasBean("idempotencyFilterRegistration");
                    assertThat(context).doesNotHaveBean(MicrometerIdemListener.class);
                });
        web().withClassLoader(new FilteredClassLoader(DispatcherServlet.class))
                .withBean(DataSource.class, () -> unclosable(db)).run(context -> {
                    assertThat(context).hasNotFailed().hasSingleBean(Idem.class).hasSingleBean(Sweeper.class);
                    assertThat(context).doesNotHaveBean(FilterRegistrationBean.class);
                });
    }

    // ---- the application's beans win ------------------------------------------------------------

    @Test
    void anApplicationStoreWins() {
        NonDurableMemoryStore own = new NonDurableMemoryStore();
        web().withBean(DataSource.class, () -> unclosable(db)).withBean(IdempotencyStore.class, () -> own).run(context -> {
            assertThat(context).doesNotHaveBean(JdbcIdempotencyStore.class);
            assertThat(context.getBean(Idem.class).store()).isSameAs(own);
        });
    }

    @Test
    void anApplicationIdemWinsAndNeedsNoDataSource() {
        Idem own = Idem.builder().store(new NonDurableMemoryStore()).build();
        web().withBean(Idem.class, () -> own).run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context.getBean(Idem.class)).isSameAs(own);
            assertThat(context).as("no DataSource: no store bean").doesNotHaveBean(IdempotencyStore.class);
            assertThat(context.getBean("idempotencyFilterRegistration", FilterRegistrationBean.class).getFilter().toString())
                    .as("the filter runs on the application's Idem").contains(own.toString());
        });
    }

    @Test
    void anApplicationFilterRegistrationOrFilterBeanWins() {
        web().withBean(DataSource.class, () -> unclosable(db)).withUserConfiguration(OwnFilterRegistration.class).run(context -> {
            assertThat(context).hasNotFailed().doesNotHaveBean("idempotencyFilterRegistration");
            assertThat(context).hasBean("myRegistration");
        });
        web().withBean(DataSource.class, () -> unclosable(db)).withUserConfiguration(OwnFilter.class).run(context -> {
            assertThat(context).hasNotFailed().doesNotHaveBean("idempotencyFilterRegistration");
            assertThat(context).hasSingleBean(IdempotencyFilter.class);
        });
    }

    @Configuration(proxyBeanMethods = false)
    static class OwnFilterRegistration {
        @Bean
        FilterRegistrationBean<IdempotencyFilter> myRegistration() {
            Idem idem = Idem.builder().store(new NonDurableMemoryStore()).build();
            return new FilterRegistrationBean<>(IdempotencyFilter.builder(idem).build());
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class OwnFilter {
        @Bean
        IdempotencyFilter myFilter() {
            return IdempotencyFilter.builder(Idem.builder().store(new NonDurableMemoryStore()).build()).build();
        }
    }

    @Test
    void applicationResolversAndFingerprinterWin() {
        RoutePolicyResolver routes = RoutePolicyResolver.always(RoutePolicy.optional());
        ScopeResolver scopes = ScopeResolver.credentialHeader("Authorization");
        RequestFingerprinter fingerprinter = new RequestFingerprinter();
        web().withBean(DataSource.class, () -> unclosable(db))
                .withBean(RoutePolicyResolver.class, () -> routes)
                .withBean(ScopeResolver.class, () -> scopes)
                .withBean(RequestFingerprinter.class, () -> fingerprinter)
                .run(context -> {
                    assertThat(context.getBean(RoutePolicyResolver.class)).isSameAs(routes);
                    assertThat(context.getBean(ScopeResolver.class)).isSameAs(scopes);
                    assertThat(context.getBean(RequestFingerprinter.class)).isSameAs(fingerprinter);
                    assertThat(context).hasBean("idempotencyFilterRegistration");
                });
    }

    @Test
    void idemEnabledFalseTurnsEverythingOff() {
        web().withBean(DataSource.class, () -> unclosable(db)).withPropertyValues("idem.enabled=false").run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context).doesNotHaveBean(IdemProperties.class).doesNotHaveBean(Idem.class)
                    .doesNotHaveBean(IdempotencyStore.class).doesNotHaveBean(Sweeper.class)
                    .doesNotHaveBean(SweeperLifecycle.class).doesNotHaveBean(FilterRegistrationBean.class)
                    .doesNotHaveBean(RoutePolicyResolver.class).doesNotHaveBean(ScopeResolver.class);
        });
    }

    @Test
    void withoutADataSourceOrStoreStartupFailsWithAClearMessage() throws IOException {
        web().run(context -> {
            assertThat(context).hasFailed();
            Throwable failure = context.getStartupFailure();
            NoIdempotencyStoreException cause = rootCause(failure, NoIdempotencyStoreException.class);
            assertThat(cause.getMessage()).contains("IdempotencyStore", "DataSource", "spring.datasource.url", "idem.enabled=false");
            FailureAnalysis analysis = new NoIdempotencyStoreFailureAnalyzer().analyze(failure);
            assertThat(analysis.getDescription()).contains("no IdempotencyStore bean and no single DataSource");
            assertThat(analysis.getAction()).contains("spring.datasource.url", "IdempotencyStore", "idem.enabled=false");
        });
        assertThat(springFactories()).as("the analyzer is registered with Spring Boot")
                .contains("org.springframework.boot.diagnostics.FailureAnalyzer=\\\ndev.idem.spring.internal.NoIdempotencyStoreFailureAnalyzer");
    }

    // ---- properties ---------------------------------------------------------------------------

    @Test
    void propertiesBindWithTheirDefaults() {
        web().withBean(DataSource.class, () -> unclosable(db)).run(context -> {
            IdemProperties properties = context.getBean(IdemProperties.class);
            assertThat(properties.isEnabled()).isTrue();
            assertThat(properties.getHeaderName()).isEqualTo("Idempotency-Key");
            assertThat(properties.getMethods()).containsExactly("POST", "PATCH");
            assertThat(properties.getDefaultPolicy()).isEqualTo(IdemProperties.DefaultPolicy.ANNOTATED);
            assertThat(properties.getLease()).isEqualTo(Duration.ofSeconds(30));
            assertThat(properties.getRetention()).isEqualTo(Duration.ofHours(24));
            assertThat(properties.getInFlight()).isEqualTo(IdemProperties.InFlight.REJECT);
            assertThat(properties.getMaxWait()).isEqualTo(Duration.ofSeconds(10));
            assertThat(properties.getMaxRequestBytes()).isEqualTo(DataSize.ofMegabytes(1));
            assertThat(properties.getMaxResponseBytes()).isEqualTo(DataSize.ofMegabytes(1));
            assertThat(properties.getTableName()).isEqualTo("idem_record");
            assertThat(properties.getSchema().isInitialize()).isTrue();
            assertThat(properties.getSweeper().isEnabled()).isTrue();
            assertThat(properties.getSweeper().getInterval()).isEqualTo(Duration.ofMinutes(1));
            assertThat(properties.getSweeper().getBatchSize()).isEqualTo(500);
            assertThat(properties.getScope().getCredentialHeader()).isEmpty();
            assertThat(properties.getFilter().getOrder()).isEqualTo(-90);
            assertThat(properties.getNotStoredStatuses()).containsExactly("408", "409", "425", "429", "5xx");
            assertThat(properties.getFailureRetryAfter()).isEqualTo(Duration.ofSeconds(2));
            assertThat(context.getBean("idempotencyFilterRegistration", FilterRegistrationBean.class).getFilter().toString())
                    .contains("StoragePolicy[store not 408, 409, 425, 429, 5xx]", "failureRetryAfter=PT2S");

            Idem idem = context.getBean(Idem.class);
            assertThat(idem.lease()).isEqualTo(Duration.ofSeconds(30));
            assertThat(idem.retention()).isEqualTo(Duration.ofHours(24));
            assertThat(idem.maxResponseBytes()).as("the engine stores what the filter stores").isEqualTo(1024 * 1024);
        });
    }

    @ParameterizedTest(name = "idem.coalesce-commits={0} on PostgreSQL: {1}")
    @CsvSource({"auto, false", "on, true", "true, true", "off, false", "false, false"})
    void coalescedCommitsAreTheDialectsChoiceUnlessTurnedOnOrOff(String value, boolean coalesced) throws Exception {
        try (TestDatabase postgres = RealServices.postgres()) {
            web().withBean(DataSource.class, () -> unclosable(postgres)).withPropertyValues("idem.coalesce-commits=" + value)
                    .run(context -> assertThat(context.getBean(JdbcIdempotencyStore.class).coalescesCommits()).isEqualTo(coalesced));
        }
    }

    @Test
    void partitionPropertiesGiveAStoreWithRetentionByPartitionOnAPartitionedTable() throws Exception {
        try (TestDatabase postgres = RealServices.postgres()) {
            web().withBean(DataSource.class, () -> unclosable(postgres))
                    .withPropertyValues("idem.jdbc.partitions.width=1h", "idem.jdbc.partitions.horizon=2d")
                    .run(context -> {
                        dev.idem.jdbc.RetentionPartitions partitions =
                                context.getBean(JdbcIdempotencyStore.class).retentionPartitions().orElseThrow();
                        assertThat(partitions.width()).isEqualTo(Duration.ofHours(1));
                        assertThat(partitions.horizon()).isEqualTo(Duration.ofDays(2));
                        assertThat(partitions.partitioned()).as("created partitioned by the start-up migration").isTrue();
                    });
            // Without the properties the store refuses the partitioned table; on a fresh database it has no partitions.
            web().withBean(DataSource.class, () -> unclosable(postgres))
                    .run(context -> assertThat(context).hasFailed().getFailure().hasStackTraceContaining("retentionByPartition"));
        }
        try (TestDatabase fresh = RealServices.postgres()) {
            web().withBean(DataSource.class, () -> unclosable(fresh))
                    .run(context -> assertThat(context.getBean(JdbcIdempotencyStore.class).retentionPartitions()).isEmpty());
        }
    }

    @ParameterizedTest(name = "idem.durability-check={0} on sessions with synchronous_commit=off: starts {1}")
    @CsvSource({"require-durable, false", "warn, true", "skip, true"})
    void theDurabilityCheckPropertyReachesTheStore(String value, boolean starts) throws Exception {
        try (TestDatabase unsafe = RealServices.postgresWithSessionSettings("synchronous_commit=off")) {
            web().withBean(DataSource.class, () -> unclosable(unsafe)).withPropertyValues("idem.durability-check=" + value)
                    .run(context -> {
                        if (starts) {
                            assertThat(context).hasNotFailed();
                        } else {
                            assertThat(context).hasFailed().getFailure().hasStackTraceContaining("synchronous_commit is 'off'");
                        }
                    });
        }
    }

    @Test
    void anUnknownCoalesceCommitsValueFailsStartupNamingTheProperty() {
        web().withBean(DataSource.class, () -> unclosable(db)).withPropertyValues("idem.coalesce-commits=sometimes")
                .run(context -> assertThat(context).hasFailed().getFailure().hasStackTraceContaining("idem.coalesce-commits"));
    }

    @Test
    void propertiesReachTheEngineStoreAndFilter() {
        String table = "idem_custom_" + UUID.randomUUID().toString().replace("-", "").substring(0, 8);
        web().withBean(DataSource.class, () -> unclosable(db))
                .withPropertyValues("idem.lease=5s", "idem.retention=2h", "idem.tombstones=7d", "idem.max-response-bytes=3MB", "idem.max-request-bytes=10KB",
                        "idem.table-name=" + table, "idem.methods=POST,PUT", "idem.header-name=X-Request-Key", "idem.filter.order=7",
                        "idem.in-flight=wait", "idem.max-wait=3s", "idem.sweeper.batch-size=50", "idem.default-policy=all",
                        "idem.not-stored-statuses=429, 5XX", "idem.failure-retry-after=5s", "idem.coalesce-commits=false")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    Idem idem = context.getBean(Idem.class);
                    assertThat(idem.lease()).isEqualTo(Duration.ofSeconds(5));
                    assertThat(idem.retention()).isEqualTo(Duration.ofHours(2));
                    assertThat(idem.tombstones()).isEqualTo(Duration.ofDays(7));
                    assertThat(idem.maxResponseBytes()).isEqualTo(3 * 1024 * 1024);
                    assertThat(context.getBean(JdbcIdempotencyStore.class).tableName()).isEqualTo(table);
                    assertThat(context.getBean(JdbcIdempotencyStore.class).coalescesCommits()).isFalse();
                    FilterRegistrationBean<?> registration = context.getBean("idempotencyFilterRegistration", FilterRegistrationBean.class);
                    assertThat(registration.getOrder()).isEqualTo(7);
                    assertThat(registration.getFilter().toString()).contains("methods=[POST, PUT, PATCH, DELETE]", "header=X-Request-Key",
                            "maxRequestBytes=10240", "maxResponseBytes=3145728", "inFlight=waitUpTo(PT3S)",
                            "StoragePolicy[store not 429, 5xx]", "failureRetryAfter=PT5S");
                    IdemProperties properties = context.getBean(IdemProperties.class);
                    assertThat(properties.getSweeper().getBatchSize()).isEqualTo(50);
                    assertThat(properties.getDefaultPolicy()).isEqualTo(IdemProperties.DefaultPolicy.ALL);
                });
    }

    @ParameterizedTest(name = "{0}={1}")
    @CsvSource(delimiter = '|', value = {
            "idem.retention      | 10s          | must not be shorter than idem.lease",
            "idem.lease          | 0s           | must be a positive duration",
            "idem.tombstones     | -1s          | must not be negative",
            "idem.header-name    | Bad Header   | must be an HTTP token",
            "idem.methods        | POST,'GE T'  | must be an HTTP token",
            "idem.max-wait       | -1s          | must be a positive duration",
            "idem.max-request-bytes | 4GB       | must be between",
            "idem.table-name     | Idem-Record  | lower-case SQL identifier",
            "idem.sweeper.batch-size | 0        | must be between 1 and 100000",
            "idem.sweeper.interval | 0ms        | must be a positive duration",
            "idem.scope.credential-header | 'X Api' | must be an HTTP token",
            "idem.not-stored-statuses | 429,6xx  | was '6xx'",
            "idem.failure-retry-after | 0s       | must be a positive duration"})
    void badPropertiesFailStartupNamingTheProperty(String property, String value, String reason) {
        web().withBean(DataSource.class, () -> unclosable(db)).withPropertyValues(property + "=" + value).run(context -> {
            assertThat(context).hasFailed();
            InvalidConfigurationPropertyValueException invalid = rootCause(context.getStartupFailure(), InvalidConfigurationPropertyValueException.class);
            assertThat(invalid.getName()).isEqualTo(property);
            assertThat(invalid.getReason()).contains(reason);
        });
    }

    @Test
    void notStoredStatusesNoneOrEmptyStoresEveryStatus() {
        for (String value : new String[] {"none", ""}) {
            web().withBean(DataSource.class, () -> unclosable(db)).withPropertyValues("idem.not-stored-statuses=" + value).run(context ->
                    assertThat(context.getBean("idempotencyFilterRegistration", FilterRegistrationBean.class).getFilter().toString())
                            .as("'%s'", value).contains("StoragePolicy[store every status]"));
        }
    }

    @Test
    void aResponseCapAboveTheApplicationIdemsLimitFailsStartup() {
        Idem own = Idem.builder().store(new NonDurableMemoryStore()).maxResponseBytes(512 * 1024).build();
        web().withBean(Idem.class, () -> own).run(context -> {
            InvalidConfigurationPropertyValueException invalid = rootCause(context.getStartupFailure(), InvalidConfigurationPropertyValueException.class);
            assertThat(invalid.getName()).isEqualTo("idem.max-response-bytes");
            assertThat(invalid.getReason()).contains("524288");
        });
        web().withBean(Idem.class, () -> own).withPropertyValues("idem.max-response-bytes=512KB")
                .run(context -> assertThat(context).hasNotFailed());
    }

    // ---- schema, sweeper, meters ------------------------------------------------------------------

    @ParameterizedTest
    @EnumSource(Backend.class)
    void schemaInitializationCreatesTheTableUnlessTurnedOff(Backend backend) throws Exception {
        try (TestDatabase database = backend.open()) {
            String created = "idem_init_" + UUID.randomUUID().toString().replace("-", "").substring(0, 8);
            String skipped = "idem_skip_" + UUID.randomUUID().toString().replace("-", "").substring(0, 8);
            assertThat(tableExists(database, created)).isFalse();

            web().withBean(DataSource.class, () -> unclosable(database)).withPropertyValues("idem.table-name=" + created)
                    .run(context -> assertThat(context).hasNotFailed());
            web().withBean(DataSource.class, () -> unclosable(database))
                    .withPropertyValues("idem.table-name=" + skipped, "idem.schema.initialize=false")
                    .run(context -> assertThat(context).hasNotFailed());

            assertThat(tableExists(database, created)).as("idem.schema.initialize=true (default)").isTrue();
            assertThat(tableExists(database, skipped)).as("idem.schema.initialize=false").isFalse();
        }
    }

    @Test
    void theSweeperPurgesExpiredRecordsWhileTheContextRunsAndStopsWithIt() throws Exception {
        Set<Thread> sweepersBefore = sweeperThreads();
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        Set<Thread> ours = new HashSet<>();
        AtomicReference<SweeperLifecycle> lifecycle = new AtomicReference<>();
        web().withBean(DataSource.class, () -> unclosable(db)).withBean(MeterRegistry.class, () -> registry)
                .withPropertyValues("idem.sweeper.interval=20ms")
                .run(context -> {
                    lifecycle.set(context.getBean(SweeperLifecycle.class));
                    assertThat(lifecycle.get().isRunning()).isTrue();
                    ours.addAll(sweeperThreads());
                    ours.removeAll(sweepersBefore);
                    assertThat(ours).as("the sweeper's own thread").isNotEmpty();

                    // A record completed with a retention of one millisecond: expired at once. Written through
                    // the store SPI, so the record is live (30 s) until completed and the sweeper cannot race it.
                    IdempotencyStore store = context.getBean(IdempotencyStore.class);
                    RecordKey id = new RecordKey(Scope.of("sweeper-test", "POST /expiring"), IdempotencyKey.of("expiring-1"));
                    ClaimOutcome claim = store.claim(new ClaimRequest(id, Fingerprint.builder().part("body", "x").build(),
                            Duration.ofSeconds(30), Duration.ofSeconds(30)));
                    assertThat(claim).isInstanceOf(ClaimOutcome.Acquired.class);
                    store.complete(id, ((ClaimOutcome.Acquired) claim).token(), StoredResponse.of(201, new byte[0]), Duration.ofMillis(1));

                    ConcurrencyTest.awaitTrue("the sweeper deleted the expired record and counted it",
                            () -> rowsOfScope(db, id.scope()) == 0 && registry.counter(MicrometerIdemListener.PURGED).count() >= 1);
                    assertThat(rowsOfScope(db, id.scope())).isZero();
                    assertThat(registry.counter(MicrometerIdemListener.PURGED).count()).as("idem.purged").isGreaterThanOrEqualTo(1);
                });
        assertThat(lifecycle.get().isRunning()).as("stopped with the context").isFalse();
        for (Thread thread : ours) {
            thread.join(60_000);
            assertThat(thread.isAlive()).as("the sweeper's thread ended").isFalse();
        }
    }

    @Test
    void theSweeperCanBeTurnedOff() {
        web().withBean(DataSource.class, () -> unclosable(db)).withPropertyValues("idem.sweeper.enabled=false").run(context -> {
            assertThat(context).hasNotFailed().hasSingleBean(Idem.class);
            assertThat(context).doesNotHaveBean(Sweeper.class).doesNotHaveBean(SweeperLifecycle.class);
        });
    }

    @Test
    void withAMeterRegistryTheEngineCountsClaimsByOutcome() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        web().withBean(MeterRegistry.class, () -> registry).withBean(IdempotencyStore.class, NonDurableMemoryStore::new).run(context -> {
            assertThat(context).hasSingleBean(MicrometerIdemListener.class);
            Idem idem = context.getBean(Idem.class);
            Scope scope = Scope.of("meter-test", "POST /x");
            Fingerprint one = Fingerprint.builder().part("body", "1").build();
            Fingerprint two = Fingerprint.builder().part("body", "2").build();
            idem.execute(scope, IdempotencyKey.of("k"), one, run -> StoredResponse.of(201, new byte[0]));
            idem.execute(scope, IdempotencyKey.of("k"), one, run -> StoredResponse.of(201, new byte[0]));
            idem.execute(scope, IdempotencyKey.of("k"), two, run -> StoredResponse.of(201, new byte[0]));

            assertThat(registry.counter(MicrometerIdemListener.CLAIMS, "outcome", "acquired", "operation", "POST /x").count()).isEqualTo(1);
            assertThat(registry.counter(MicrometerIdemListener.CLAIMS, "outcome", "replayed", "operation", "POST /x").count()).isEqualTo(1);
            assertThat(registry.counter(MicrometerIdemListener.CLAIMS, "outcome", "mismatch", "operation", "POST /x").count()).isEqualTo(1);
            assertThat(registry.find(MicrometerIdemListener.CLAIMS).tag("outcome", "in_progress").counters()).isEmpty();
            assertThat(registry.find(MicrometerIdemListener.LEASE_LOST).counter()).as("registered up front").isNotNull();
        });
    }

    /** The registry Boot's metrics auto-configuration makes (as with Actuator) is seen: idem is ordered after it. */
    @Test
    void bootsAutoConfiguredMeterRegistryGetsTheMeters() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(BootLine.METER_REGISTRY_AUTO_CONFIGURATIONS))
                .withConfiguration(AutoConfigurations.of(IdemAutoConfiguration.class))
                .withBean(IdempotencyStore.class, NonDurableMemoryStore::new)
                .run(context -> {
                    assertThat(context).hasNotFailed().hasSingleBean(MicrometerIdemListener.class);
                    MeterRegistry registry = context.getBean(MeterRegistry.class);
                    Idem idem = context.getBean(Idem.class);
                    idem.execute(Scope.of("boot-registry", "POST /x"), IdempotencyKey.of("k"), Fingerprint.builder().part("body", "1").build(),
                            run -> StoredResponse.of(201, new byte[0]));
                    assertThat(registry.get(MicrometerIdemListener.CLAIMS).tag("outcome", "acquired").counter().count()).isEqualTo(1);
                });
    }

    @Test
    void everyIdemListenerBeanHearsTheEngineBesideTheMeters() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        List<String> heard = new CopyOnWriteArrayList<>();
        IdemListener own = new IdemListener() {
            @Override
            public void claimed(Scope scope, int attempt) {
                heard.add("claimed " + scope.value());
            }

            @Override
            public void replayed(Scope scope) {
                heard.add("replayed " + scope.value());
            }
        };
        web().withBean(MeterRegistry.class, () -> registry).withBean(IdempotencyStore.class, NonDurableMemoryStore::new)
                .withBean(IdemListener.class, () -> own)
                .run(context -> {
                    Idem idem = context.getBean(Idem.class);
                    Scope scope = Scope.of("listener-test", "POST /x");
                    Fingerprint fingerprint = Fingerprint.builder().part("body", "1").build();
                    idem.execute(scope, IdempotencyKey.of("k"), fingerprint, run -> StoredResponse.of(201, new byte[0]));
                    idem.execute(scope, IdempotencyKey.of("k"), fingerprint, run -> StoredResponse.of(201, new byte[0]));

                    assertThat(heard).containsExactly("claimed listener-test POST /x", "replayed listener-test POST /x");
                    assertThat(registry.counter(MicrometerIdemListener.CLAIMS, "outcome", "replayed", "operation", "POST /x").count()).isEqualTo(1);
                });
    }

    // ---- helpers ------------------------------------------------------------------------------

    static <T extends Throwable> T rootCause(Throwable failure, Class<T> type) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (type.isInstance(t)) {
                return type.cast(t);
            }
        }
        throw new AssertionError("no " + type.getSimpleName() + " in the causes of " + failure, failure);
    }

    private static boolean tableExists(TestDatabase database, String table) throws SQLException {
        try (Connection c = database.dataSource().getConnection();
             ResultSet rs = c.getMetaData().getTables(null, null, table, null)) {
            return rs.next();
        }
    }

    private static int rowsOfScope(TestDatabase database, Scope scope) {
        try (Connection c = database.dataSource().getConnection();
             var ps = c.prepareStatement("SELECT count(*) FROM idem_record WHERE scope = ?")) {
            ps.setString(1, scope.value());
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getInt(1);
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    private static Set<Thread> sweeperThreads() {
        return Thread.getAllStackTraces().keySet().stream().filter(t -> t.getName().equals("idem-sweeper"))
                .collect(Collectors.toSet());
    }

    private static String springFactories() throws IOException {
        StringBuilder all = new StringBuilder();
        for (URL url : Collections.list(AutoConfigurationTest.class.getClassLoader().getResources("META-INF/spring.factories"))) {
            try (InputStream in = url.openStream()) {
                all.append(new String(in.readAllBytes(), StandardCharsets.UTF_8));
            }
        }
        return all.toString();
    }
}
