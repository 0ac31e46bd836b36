package dev.idem.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.servlet.RoutePolicy;
import dev.idem.servlet.RoutePolicyResolver;
import dev.idem.spi.IdempotencyStore;
import dev.idem.spring.internal.CompleterLifecycle;
import dev.idem.testing.NonDurableMemoryStore;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.context.annotation.Configuration;
import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestMethod;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.servlet.DispatcherServlet;
import org.springframework.web.servlet.config.annotation.EnableWebMvc;

/** {@code @Idempotent(completable = true)}: the operation name of a route, and the combinations refused at startup. */
class CompletableAnnotationTest {

    private WebApplicationContextRunner runner(Class<?>... controllers) {
        return new WebApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(IdemAutoConfiguration.class, IdemWebAutoConfiguration.class))
                .withBean(IdempotencyStore.class, NonDurableMemoryStore::new)
                .withBean(DispatcherServlet.class, DispatcherServlet::new)
                .withUserConfiguration(Mvc.class)
                .withUserConfiguration(controllers);
    }

    @Configuration(proxyBeanMethods = false)
    @EnableWebMvc
    static class Mvc {
    }

    @RestController
    static class Payments {
        @PostMapping("/payments/{id}/capture")
        @Idempotent(completable = true)
        String capture() {
            return "captured";
        }

        @PostMapping("/payments/{id}/refund")
        @Idempotent(completable = true, operation = "refund-v1", retention = "2h")
        String refund() {
            return "refunded";
        }

        @PostMapping("/payments/" + "abcdefghij0123456789abcdefghij0123456789abcdefghij0123456789/long")
        @Idempotent(completable = true)
        String longRoute() {
            return "long";
        }

        @PostMapping("/payments/plain")
        @Idempotent
        String plain() {
            return "plain";
        }
    }

    @Test
    @DisplayName("a completable route's policy names its operation, derived from method and pattern or explicit; the completer runs")
    void completableRoutesNameTheirOperation() {
        runner(Payments.class).run(context -> {
            assertThat(context).hasNotFailed();
            RoutePolicy capture = resolve(context, "/payments/7/capture");
            assertThat(capture.completion().orElseThrow().operationName()).isEqualTo("http:POST:/payments/{id}/capture");
            RoutePolicy refund = resolve(context, "/payments/7/refund");
            assertThat(refund.completion().orElseThrow().operationName()).isEqualTo("refund-v1");
            assertThat(refund.idem()).as("its own retention").isPresent();
            String longName = resolve(context, "/payments/abcdefghij0123456789abcdefghij0123456789abcdefghij0123456789/long")
                    .completion().orElseThrow().operationName();
            assertThat(longName).hasSize(64).startsWith("http:POST:/payments/abcdefghij").matches(".*~[0-9a-f]{8}");
            assertThat(resolve(context, "/payments/plain").completion()).isEmpty();
            assertThat(capture.completion().get().operations().names())
                    .containsExactlyInAnyOrder("http:POST:/payments/{id}/capture", "refund-v1", longName);
            assertThat(context.getBean(CompleterLifecycle.class).completer()).as("started with the context").isPresent();
        });
        runner(Payments.class).withPropertyValues("idem.completer.enabled=false").run(context ->
                assertThat(context.getBean(CompleterLifecycle.class).completer()).isEmpty());
    }

    @Test
    @DisplayName("without a completable route no completer runs")
    void noCompletableRouteNoCompleter() {
        runner(Plain.class).run(context -> assertThat(context.getBean(CompleterLifecycle.class).completer()).isEmpty());
    }

    @RestController
    static class Plain {
        @PostMapping("/plain")
        @Idempotent
        String plain() {
            return "plain";
        }
    }

    @RestController
    static class Transactional {
        @PostMapping("/ledger")
        @Idempotent(completable = true, transactional = true)
        String book() {
            return "booked";
        }
    }

    @RestController
    static class TwoMethods {
        @RequestMapping(path = "/either", method = {RequestMethod.POST, RequestMethod.PUT})
        @Idempotent(completable = true)
        String either() {
            return "either";
        }
    }

    @RestController
    static class SameName {
        @PostMapping("/one")
        @Idempotent(completable = true, operation = "pay")
        String one() {
            return "one";
        }

        @PostMapping("/two")
        @Idempotent(completable = true, operation = "pay")
        String two() {
            return "two";
        }
    }

    @RestController
    static class BadName {
        @PostMapping("/bad")
        @Idempotent(completable = true, operation = "pay now")
        String bad() {
            return "bad";
        }
    }

    @Test
    @DisplayName("refused at startup, naming the handler: with transactional, without one method and path, two handlers on one name, a bad name")
    void combinationsThatCannotWorkAreRefused() {
        runner(Transactional.class).run(context -> assertThat(failure(context))
                .hasMessageContaining(Transactional.class.getName() + "#book").hasMessageContaining("transactional = true"));
        runner(TwoMethods.class).run(context -> assertThat(failure(context))
                .hasMessageContaining(TwoMethods.class.getName() + "#either").hasMessageContaining("2 HTTP methods")
                .hasMessageContaining("operation = "));
        runner(SameName.class).run(context -> assertThat(failure(context))
                .hasMessageContaining("operation 'pay' is also"));
        runner(BadName.class).run(context -> assertThat(failure(context))
                .hasMessageContaining(BadName.class.getName() + "#bad").hasMessageContaining("a space at position 3"));
    }

    /** The most specific cause of the startup failure: the refusal itself, whichever bean creation wraps it. */
    private static Throwable failure(org.springframework.boot.test.context.assertj.AssertableWebApplicationContext context) {
        assertThat(context).hasFailed();
        return org.springframework.core.NestedExceptionUtils.getMostSpecificCause(context.getStartupFailure());
    }

    private static RoutePolicy resolve(org.springframework.context.ApplicationContext context, String path) {
        return context.getBean(RoutePolicyResolver.class).resolve(new MockHttpServletRequest("POST", path));
    }
}
