package dev.idem.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.Idem;
import dev.idem.servlet.RoutePolicy;
import dev.idem.servlet.RoutePolicyResolver;
import dev.idem.spi.IdempotencyStore;
import dev.idem.testing.NonDurableMemoryStore;
import java.time.Duration;
import java.util.Collections;
import dev.idem.testing.TestDatabase;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.DataSourceUtils;
import org.springframework.jdbc.datasource.DelegatingDataSource;
import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.servlet.HandlerMapping;
import org.springframework.web.servlet.config.annotation.EnableWebMvc;
import org.springframework.web.util.ServletRequestPathUtils;

/**
 * How {@link Idempotent} becomes a route policy: the starter's {@link RoutePolicyResolver} finds the
 * handler through Spring MVC's handler mappings, reads the annotation (method, else class), caches a
 * per-endpoint engine, and leaves the request as it found it except for the route attribute.
 */
class IdempotentAnnotationTest {

    private WebApplicationContextRunner runner(Class<?>... controllers) {
        return new WebApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(IdemAutoConfiguration.class, IdemWebAutoConfiguration.class))
                .withBean(IdempotencyStore.class, NonDurableMemoryStore::new)
                .withUserConfiguration(Mvc.class)
                .withUserConfiguration(controllers);
    }

    @Configuration(proxyBeanMethods = false)
    @EnableWebMvc
    static class Mvc {
    }

    @RestController
    static class IdempotentGet {
        @GetMapping("/balance")
        @Idempotent
        String balance() {
            return "42";
        }
    }

    @Test
    void idempotentOnAGetHandlerIsRefusedAtStartupNamingTheHandler() {
        runner(IdempotentGet.class).run(context -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure()).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("@Idempotent on " + IdempotentGet.class.getName() + "#balance")
                    .hasMessageContaining("a GET handler is safe");
        });
    }

    @RestController
    static class Payments {
        @PostMapping("/payments")
        @Idempotent
        String pay() {
            return "paid";
        }

        @PostMapping("/payments/{id}/refund")
        @Idempotent(required = false, retention = "2h", lease = "10s")
        String refund(@PathVariable("id") long id) {
            return "refunded";
        }

        @PostMapping("/payments/{id}/capture")
        @Idempotent(inFlight = Idempotent.InFlight.WAIT, maxWait = "${test.capture-wait:4s}")
        String capture(@PathVariable("id") long id) {
            return "captured";
        }

        @PostMapping("/payments/search")
        String search() {
            return "results";
        }

        @GetMapping("/payments/{id}")
        String read(@PathVariable("id") long id) {
            return "payment";
        }
    }

    @RestController
    @Idempotent(lease = "20s")
    static class Transfers {
        @PostMapping("/transfers")
        String transfer() {
            return "sent";
        }

        @PostMapping("/transfers/draft")
        @Idempotent(required = false)
        String draft() {
            return "drafted";
        }
    }

    private static RoutePolicy resolve(org.springframework.context.ApplicationContext context, MockHttpServletRequest request) {
        return context.getBean(RoutePolicyResolver.class).resolve(request);
    }

    @Test
    void annotatedEndpointsAreCoveredAndOthersPassThrough() {
        runner(Payments.class).run(context -> {
            assertThat(resolve(context, new MockHttpServletRequest("POST", "/payments"))).isEqualTo(RoutePolicy.required());
            assertThat(resolve(context, new MockHttpServletRequest("POST", "/payments/search"))).as("not annotated")
                    .isEqualTo(RoutePolicy.notCovered());
            assertThat(resolve(context, new MockHttpServletRequest("POST", "/nowhere"))).as("no handler: MVC answers 404")
                    .isEqualTo(RoutePolicy.notCovered());
            assertThat(resolve(context, new MockHttpServletRequest("PATCH", "/payments"))).as("no PATCH handler: MVC answers 405")
                    .isEqualTo(RoutePolicy.notCovered());
        });
    }

    @Test
    void defaultPolicyAllCoversEveryHandlerMethod() {
        runner(Payments.class).withPropertyValues("idem.default-policy=all").run(context -> {
            assertThat(resolve(context, new MockHttpServletRequest("POST", "/payments/search"))).isEqualTo(RoutePolicy.required());
            assertThat(resolve(context, new MockHttpServletRequest("POST", "/nowhere"))).isEqualTo(RoutePolicy.notCovered());
        });
    }

    @Test
    void attributesBecomeAPerEndpointEngineBuiltOnce() {
        runner(Payments.class).run(context -> {
            Idem global = context.getBean(Idem.class);
            RoutePolicy refund = resolve(context, new MockHttpServletRequest("POST", "/payments/7/refund"));
            RoutePolicy again = resolve(context, new MockHttpServletRequest("POST", "/payments/8/refund"));

            assertThat(refund.covered()).isTrue();
            assertThat(refund.keyRequired()).as("required = false").isFalse();
            Idem variant = refund.idem().orElseThrow();
            assertThat(variant.retention()).isEqualTo(Duration.ofHours(2));
            assertThat(variant.lease()).isEqualTo(Duration.ofSeconds(10));
            assertThat(variant.store()).as("same store as the application's engine").isSameAs(global.store());
            assertThat(variant.maxResponseBytes()).isEqualTo(global.maxResponseBytes());
            assertThat(again).as("cached per handler method").isSameAs(refund);
            assertThat(resolve(context, new MockHttpServletRequest("POST", "/payments")).idem()).as("no setting changed: the global engine").isEmpty();
        });
    }

    @Test
    void waitPolicyWithAPlaceholderMaxWait() {
        runner(Payments.class).withPropertyValues("test.capture-wait=7s").run(context -> {
            Idem capture = resolve(context, new MockHttpServletRequest("POST", "/payments/1/capture")).idem().orElseThrow();
            assertThat(capture.toString()).contains("inFlight=waitUpTo(PT7S)");
        });
    }

    @Test
    void classLevelAnnotationAppliesAndTheMethodsOwnWins() {
        runner(Transfers.class).run(context -> {
            RoutePolicy transfer = resolve(context, new MockHttpServletRequest("POST", "/transfers"));
            RoutePolicy draft = resolve(context, new MockHttpServletRequest("POST", "/transfers/draft"));

            assertThat(transfer.keyRequired()).isTrue();
            assertThat(transfer.idem().orElseThrow().lease()).isEqualTo(Duration.ofSeconds(20));
            assertThat(draft.keyRequired()).as("the method's annotation, not the class's").isFalse();
            assertThat(draft.idem()).as("the method's annotation changes no setting").isEmpty();
        });
    }

    @Test
    void theRouteIsThePatternAndTheHandlerLookupLeavesNoOtherTrace() {
        runner(Payments.class).run(context -> {
            MockHttpServletRequest request = new MockHttpServletRequest("POST", "/payments/42/refund");

            resolve(context, request);

            assertThat(IdemRoutes.route(request)).isEqualTo("/payments/{id}/refund");
            assertThat(Collections.list(request.getAttributeNames())).containsExactly(IdemRoutes.ROUTE_ATTRIBUTE);
            assertThat(request.getAttribute(HandlerMapping.BEST_MATCHING_PATTERN_ATTRIBUTE)).isNull();
            assertThat(request.getAttribute(HandlerMapping.URI_TEMPLATE_VARIABLES_ATTRIBUTE)).isNull();
            assertThat(ServletRequestPathUtils.hasParsedRequestPath(request)).isFalse();
        });
    }

    @Test
    void aRequestThatIsNotCoveredGetsNoRouteAttribute() {
        runner(Payments.class).run(context -> {
            MockHttpServletRequest request = new MockHttpServletRequest("POST", "/payments/search");
            resolve(context, request);
            assertThat(Collections.list(request.getAttributeNames())).isEmpty();
            assertThat(IdemRoutes.route(request)).as("falls back to the path").isEqualTo("/");
        });
    }

    @RestController
    static class Limits {
        @PostMapping("/limits/stored-429")
        @Idempotent(notStored = "5xx")
        String stored429() {
            return "";
        }

        @PostMapping("/limits/everything")
        @Idempotent(notStored = "${test.not-stored:none}")
        String everything() {
            return "";
        }

        @PostMapping("/limits/global")
        @Idempotent
        String global() {
            return "";
        }
    }

    @RestController
    static class BadNotStored {
        @PostMapping("/bad-not-stored")
        @Idempotent(notStored = "429, 600")
        String bad() {
            return "";
        }
    }

    @Test
    void notStoredBecomesTheEndpointsStoragePolicyWithPlaceholders() {
        runner(Limits.class).run(context -> {
            RoutePolicy stored429 = resolve(context, new MockHttpServletRequest("POST", "/limits/stored-429"));
            assertThat(stored429.storagePolicy().orElseThrow().toString()).isEqualTo("StoragePolicy[store not 5xx]");
            assertThat(stored429.idem()).as("no engine setting changed").isEmpty();
            assertThat(resolve(context, new MockHttpServletRequest("POST", "/limits/everything")).storagePolicy().orElseThrow())
                    .hasToString("StoragePolicy[store every status]");
            assertThat(resolve(context, new MockHttpServletRequest("POST", "/limits/global")).storagePolicy())
                    .as("the filter's, from idem.not-stored-statuses").isEmpty();
        });
        runner(Limits.class).withPropertyValues("test.not-stored=429,409").run(context ->
                assertThat(resolve(context, new MockHttpServletRequest("POST", "/limits/everything")).storagePolicy().orElseThrow())
                        .hasToString("StoragePolicy[store not 429, 409]"));
        runner(BadNotStored.class).run(context -> assertThat(AutoConfigurationTest.rootCause(
                context.getStartupFailure(), IllegalStateException.class)).hasMessageContaining(BadNotStored.class.getName() + "#bad")
                .hasMessageContaining("notStored '429, 600'").hasMessageContaining("was ' 600'"));
    }

    @RestController
    static class BadLease {
        @PostMapping("/bad")
        @Idempotent(lease = "soon")
        String bad() {
            return "";
        }
    }

    @RestController
    static class RetentionShorterThanLease {
        @PostMapping("/short")
        @Idempotent(retention = "5s", lease = "1m")
        String bad() {
            return "";
        }
    }

    @RestController
    static class MaxWaitWithoutWaiting {
        @PostMapping("/reject")
        @Idempotent(inFlight = Idempotent.InFlight.REJECT, maxWait = "5s")
        String bad() {
            return "";
        }
    }

    @Test
    void aBadAnnotationFailsStartupNamingTheMethod() {
        runner(BadLease.class).run(context -> assertThat(AutoConfigurationTest.rootCause(
                context.getStartupFailure(), IllegalStateException.class))
                .hasMessageContaining(BadLease.class.getName() + "#bad").hasMessageContaining("lease 'soon' is not a duration"));
        runner(RetentionShorterThanLease.class).run(context -> assertThat(AutoConfigurationTest.rootCause(
                context.getStartupFailure(), IllegalStateException.class)).hasMessageContaining(RetentionShorterThanLease.class.getName() + "#bad")
                .hasMessageContaining("must not be shorter than the lease"));
        runner(MaxWaitWithoutWaiting.class).run(context -> assertThat(AutoConfigurationTest.rootCause(
                context.getStartupFailure(), IllegalStateException.class)).hasMessageContaining("maxWait is set but inFlight is REJECT"));
    }

    // ---- transactional = true ----------------------------------------------------------------

    @RestController
    static class Ledger {
        @PostMapping("/ledger")
        @Idempotent(transactional = true, retention = "2h")
        String book() {
            return "booked";
        }
    }

    @RestController
    static class TransactionalWithWait {
        @PostMapping("/ledger/wait")
        @Idempotent(transactional = true, inFlight = Idempotent.InFlight.WAIT)
        String book() {
            return "booked";
        }
    }

    /**
     * The starter's engine and filter over a JDBC store on {@code dataSource} (a bean the context does
     * not close), without any transaction manager unless added.
     */
    private WebApplicationContextRunner jdbcRunner(DataSource dataSource, Class<?>... controllers) {
        return new WebApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(IdemAutoConfiguration.class, IdemWebAutoConfiguration.class))
                .withBean(DataSource.class, () -> dataSource)
                .withUserConfiguration(Mvc.class)
                .withUserConfiguration(controllers);
    }

    @Test
    void aTransactionalEndpointRunsInATransactionOfTheManagerOfTheStoresDataSource() {
        try (TestDatabase db = Backend.SQLITE.open(); TestDatabase another = Backend.SQLITE.open()) {
            DataSource storeDataSource = new DelegatingDataSource(db.dataSource());
            DataSourceTransactionManager storeManager = new DataSourceTransactionManager(storeDataSource);
            jdbcRunner(storeDataSource, Ledger.class)
                    .withBean("otherManager", PlatformTransactionManager.class, () -> new DataSourceTransactionManager(another.dataSource()))
                    .withBean("storeManager", PlatformTransactionManager.class, () -> storeManager)
                    .run(context -> {
                        assertThat(context).hasNotFailed();
                        RoutePolicy policy = resolve(context, new MockHttpServletRequest("POST", "/ledger"));
                        assertThat(policy.covered()).isTrue();
                        assertThat(policy.runner()).as("a transactional runner").isPresent();
                        assertThat(policy.idem()).as("no engine: the runner replaces it").isEmpty();
                        assertThat(policy.runner().get().toString()).contains(DataSourceTransactionManager.class.getName());
                        assertThat(policy.runner().get().retention()).as("advertised in Idempotency-Key-Retention")
                                .contains(java.time.Duration.ofHours(2));
                    });
        }
    }

    @Test
    void aTransactionalEndpointFailsStartupNamingTheMethodWhenItCannotShareTheTransaction() {
        String where = Ledger.class.getName() + "#book";
        // The store is not a JDBC store.
        runner(Ledger.class).run(context -> assertThat(AutoConfigurationTest.rootCause(context.getStartupFailure(), IllegalStateException.class))
                .hasMessageContaining("@Idempotent(transactional = true) on " + where)
                .hasMessageContaining("JdbcIdempotencyStore").hasMessageContaining(NonDurableMemoryStore.class.getName()));
        try (TestDatabase db = Backend.SQLITE.open(); TestDatabase another = Backend.SQLITE.open()) {
            // No transaction manager at all.
            jdbcRunner(new DelegatingDataSource(db.dataSource()), Ledger.class).run(context -> assertThat(AutoConfigurationTest.rootCause(
                    context.getStartupFailure(), IllegalStateException.class))
                    .hasMessageContaining(where).hasMessageContaining("no PlatformTransactionManager bean"));
            // Only a manager of another DataSource.
            jdbcRunner(new DelegatingDataSource(db.dataSource()), Ledger.class)
                    .withBean(PlatformTransactionManager.class, () -> new DataSourceTransactionManager(another.dataSource()))
                    .run(context -> assertThat(AutoConfigurationTest.rootCause(context.getStartupFailure(), IllegalStateException.class))
                            .hasMessageContaining(where).hasMessageContaining("whose transactions bind the idem store's DataSource")
                            .hasMessageContaining("1 for other resources: " + DataSourceTransactionManager.class.getName()));
        }
        // Without spring-jdbc on the class path.
        runner(Ledger.class).withClassLoader(new FilteredClassLoader(DataSourceUtils.class))
                .run(context -> assertThat(AutoConfigurationTest.rootCause(context.getStartupFailure(), IllegalStateException.class))
                        .hasMessageContaining(where).hasMessageContaining("needs spring-jdbc"));
        // An engine-only setting.
        runner(TransactionalWithWait.class).run(context -> assertThat(AutoConfigurationTest.rootCause(
                context.getStartupFailure(), IllegalStateException.class))
                .hasMessageContaining(TransactionalWithWait.class.getName() + "#book")
                .hasMessageContaining("inFlight does not apply with transactional = true"));
    }
}
