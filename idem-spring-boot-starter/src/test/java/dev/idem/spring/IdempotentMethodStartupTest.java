package dev.idem.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.spi.IdempotencyStore;
import dev.idem.testing.NonDurableMemoryStore;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * {@link IdempotentMethod} annotations are read when the application starts: a bad expression, an
 * unknown parameter, a bad duration or an asynchronous return type fails startup with a message
 * naming the method. (The engine runs on the in-memory test store here: this is about wiring.)
 */
class IdempotentMethodStartupTest {
    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(IdemAutoConfiguration.class, IdemMethodAutoConfiguration.class))
            .withBean(IdempotencyStore.class, NonDurableMemoryStore::new);

    static class BadExpression {
        @IdempotentMethod(key = "#order +")
        public String place(String order) {
            return order;
        }
    }

    static class UnknownParameter {
        @IdempotentMethod(key = "#ordr")
        public String place(String order) {
            return order;
        }
    }

    static class BadDuration {
        @IdempotentMethod(key = "#order", lease = "5 minutes")
        public String place(String order) {
            return order;
        }
    }

    static class WaitWithoutWaiting {
        @IdempotentMethod(key = "#order", inFlight = Idempotent.InFlight.REJECT, maxWait = "5s")
        public String place(String order) {
            return order;
        }
    }

    static class Asynchronous {
        @IdempotentMethod(key = "#order")
        public CompletableFuture<String> place(String order) {
            return CompletableFuture.completedFuture(order);
        }
    }

    /** A valid one, injected by its class (a class-based proxy). */
    static class Counter {
        private final AtomicInteger runs = new AtomicInteger();

        public int runs() {
            return runs.get();
        }

        @IdempotentMethod(key = "#p0", scope = "counter")
        public List<Integer> count(String key) {
            return List.of(runs.incrementAndGet());
        }
    }

    @Test
    void aBadExpressionFailsStartupNamingTheMethod() {
        runner.withBean(BadExpression.class).run(context -> assertThat(context).getFailure().hasStackTraceContaining(
                "@IdempotentMethod on " + BadExpression.class.getName() + "#place: key '#order +' is not a SpEL expression"));
    }

    @Test
    void aVariableThatIsNoParameterFailsStartupListingTheParameters() {
        runner.withBean(UnknownParameter.class).run(context -> assertThat(context).getFailure().rootCause()
                .hasMessageContaining("@IdempotentMethod on " + UnknownParameter.class.getName() + "#place")
                .hasMessageContaining("refers to #ordr, which is not a parameter of the method (parameters: order;"));
    }

    @Test
    void aBadDurationFailsStartupNamingTheMethodAndAttribute() {
        runner.withBean(BadDuration.class).run(context -> assertThat(context).getFailure()
                .hasStackTraceContaining("@IdempotentMethod on " + BadDuration.class.getName() + "#place: lease '5 minutes' is not a duration"));
    }

    @Test
    void maxWaitWithRejectFailsStartup() {
        runner.withBean(WaitWithoutWaiting.class).run(context -> assertThat(context).getFailure()
                .hasStackTraceContaining("#place: maxWait is set but inFlight is REJECT"));
    }

    @Test
    void anAsynchronousReturnTypeFailsStartup() {
        runner.withBean(Asynchronous.class).run(context -> assertThat(context).getFailure()
                .hasStackTraceContaining(Asynchronous.class.getName() + "#place: returns java.util.concurrent.CompletableFuture"));
    }

    @Test
    void aValidMethodIsProxiedByClassAndRunsOncePerKey() {
        runner.withBean(Counter.class).run(context -> {
            assertThat(context).hasNotFailed();
            Counter counter = context.getBean(Counter.class);
            assertThat(counter.count("a")).containsExactly(1);
            assertThat(counter.count("a")).as("replayed as List<Integer>").containsExactly(1);
            assertThat(counter.count("b")).containsExactly(2);
            assertThat(counter.runs()).isEqualTo(2);
        });
    }

    @Test
    void withIdemDisabledNothingIsProxied() {
        runner.withPropertyValues("idem.enabled=false").withBean(Counter.class).run(context -> {
            assertThat(context).hasNotFailed().doesNotHaveBean(IdemMethodAutoConfiguration.class);
            assertThat(context.getBean(Counter.class).getClass()).isEqualTo(Counter.class);
        });
    }
}
