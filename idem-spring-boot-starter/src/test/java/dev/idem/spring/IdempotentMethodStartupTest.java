package dev.idem.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.spi.IdempotencyStore;
import dev.idem.testing.NonDurableMemoryStore;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.transaction.annotation.Propagation;
import org.springframework.transaction.annotation.Transactional;

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

    public interface Shape {
        double area();
    }

    public record Circle(double radius) implements Shape {
        @Override
        public double area() {
            return Math.PI * radius * radius;
        }
    }

    /** Nothing Jackson sees: it would be stored as {}. */
    public static final class Opaque {
        private final String secret = "s";

        @Override
        public String toString() {
            return secret;
        }
    }

    static class InterfaceReturn {
        @IdempotentMethod(key = "#p0")
        public Shape shape(String key) {
            return new Circle(1);
        }
    }

    static class InterfaceElements {
        @IdempotentMethod(key = "#p0")
        public List<Shape> shapes(String key) {
            return List.of(new Circle(1));
        }
    }

    static class ObjectReturn {
        @IdempotentMethod(key = "#p0")
        public Object anything(String key) {
            return new Circle(1);
        }
    }

    static class PropertylessReturn {
        @IdempotentMethod(key = "#p0")
        public Opaque opaque(String key) {
            return new Opaque();
        }
    }

    /** A settable bean, as Jackson reads it. */
    public static final class Account {
        private String owner;
        private long balance;

        public String getOwner() {
            return owner;
        }

        public void setOwner(String owner) {
            this.owner = owner;
        }

        public long getBalance() {
            return balance;
        }

        public void setBalance(long balance) {
            this.balance = balance;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Account a && java.util.Objects.equals(owner, a.owner) && balance == a.balance;
        }

        @Override
        public int hashCode() {
            return java.util.Objects.hash(owner, balance);
        }
    }

    public enum Status { OPEN, CLOSED }

    /** Every return type that reads back: each runs once per key and replays an equal value. */
    static class Accepted {
        private final AtomicInteger runs = new AtomicInteger();

        public int runs() {
            return runs.get();
        }

        @IdempotentMethod(key = "#p0")
        public Circle record(String key) {
            runs.incrementAndGet();
            return new Circle(2);
        }

        @IdempotentMethod(key = "#p0")
        public Account pojo(String key) {
            runs.incrementAndGet();
            Account account = new Account();
            account.setOwner("ann");
            account.setBalance(5);
            return account;
        }

        @IdempotentMethod(key = "#p0")
        public String text(String key) {
            runs.incrementAndGet();
            return "text";
        }

        @IdempotentMethod(key = "#p0")
        public long primitive(String key) {
            runs.incrementAndGet();
            return 42L;
        }

        @IdempotentMethod(key = "#p0")
        public Integer boxed(String key) {
            runs.incrementAndGet();
            return 7;
        }

        @IdempotentMethod(key = "#p0")
        public Status status(String key) {
            runs.incrementAndGet();
            return Status.CLOSED;
        }

        @IdempotentMethod(key = "#p0")
        public Set<String> set(String key) {
            runs.incrementAndGet();
            return Set.of("x", "y");
        }

        @IdempotentMethod(key = "#p0")
        public Map<String, Circle> map(String key) {
            runs.incrementAndGet();
            return Map.of("c", new Circle(3));
        }

        @IdempotentMethod(key = "#p0")
        public Optional<Circle> optional(String key) {
            runs.incrementAndGet();
            return Optional.of(new Circle(4));
        }
    }

    static class MandatoryOnAStoreWithoutTransactions {
        @IdempotentMethod(key = "#p0")
        @Transactional(propagation = Propagation.MANDATORY)
        public String place(String key) {
            return key;
        }
    }

    @Test
    void aReturnTypeThatCannotBeReadBackFailsStartupNamingMethodTypeAndFix() {
        runner.withBean(InterfaceReturn.class).run(context -> assertThat(context).getFailure()
                .hasMessageContaining("@IdempotentMethod on " + InterfaceReturn.class.getName() + "#shape")
                .hasMessageContaining(Shape.class.getName())
                .hasMessageContaining("declare a concrete return type"));
        runner.withBean(InterfaceElements.class).run(context -> assertThat(context).getFailure()
                .hasMessageContaining(InterfaceElements.class.getName() + "#shapes")
                .hasMessageContaining(Shape.class.getName()));
        runner.withBean(ObjectReturn.class).run(context -> assertThat(context).getFailure()
                .hasMessageContaining(ObjectReturn.class.getName() + "#anything")
                .hasMessageContaining("java.lang.Object"));
        runner.withBean(PropertylessReturn.class).run(context -> assertThat(context).getFailure()
                .hasMessageContaining(PropertylessReturn.class.getName() + "#opaque")
                .hasMessageContaining(Opaque.class.getName())
                .hasMessageContaining("no properties"));
    }

    @Test
    void returnTypesThatRoundTripAreAcceptedAndReplayEqualValues() {
        runner.withBean(Accepted.class).run(context -> {
            assertThat(context).hasNotFailed();
            Accepted accepted = context.getBean(Accepted.class);
            assertThat(accepted.record("r")).isEqualTo(accepted.record("r")).isEqualTo(new Circle(2));
            assertThat(accepted.pojo("p")).isEqualTo(accepted.pojo("p")).extracting(Account::getOwner).isEqualTo("ann");
            assertThat(accepted.text("t")).isEqualTo(accepted.text("t")).isEqualTo("text");
            assertThat(accepted.primitive("l")).isEqualTo(accepted.primitive("l")).isEqualTo(42L);
            assertThat(accepted.boxed("b")).isEqualTo(accepted.boxed("b")).isEqualTo(7);
            assertThat(accepted.status("s")).isEqualTo(accepted.status("s")).isEqualTo(Status.CLOSED);
            assertThat(accepted.set("set")).isEqualTo(accepted.set("set")).containsExactlyInAnyOrder("x", "y");
            assertThat(accepted.map("m")).isEqualTo(accepted.map("m")).containsEntry("c", new Circle(3));
            assertThat(accepted.optional("o")).isEqualTo(accepted.optional("o")).contains(new Circle(4));
            assertThat(accepted.runs()).isEqualTo(9);
        });
    }

    @Test
    void propagationMandatoryOnAStoreThatCannotShareTheTransactionFailsStartup() {
        runner.withBean(MandatoryOnAStoreWithoutTransactions.class).run(context -> assertThat(context).getFailure()
                .hasMessageContaining("@IdempotentMethod on " + MandatoryOnAStoreWithoutTransactions.class.getName() + "#place")
                .hasMessageContaining("MANDATORY")
                .hasMessageContaining(NonDurableMemoryStore.class.getName()));
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
