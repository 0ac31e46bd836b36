package dev.idem.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.Completer;
import dev.idem.CompletableOperation;
import dev.idem.Fingerprint;
import dev.idem.Idem;
import dev.idem.IdempotencyKey;
import dev.idem.InputCodec;
import dev.idem.LeaseLostException;
import dev.idem.OperationRegistry;
import dev.idem.Outcome;
import dev.idem.Scope;
import dev.idem.StoredResponse;
import dev.idem.spi.IdempotencyRecord;
import dev.idem.spi.IdempotencyStore;
import dev.idem.spi.RecordKey;
import dev.idem.spi.RecordState;
import dev.idem.spi.RecordSummary;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The {@link Completer} against a real store: an operation whose owner died after a checkpointed phase,
 * and whose client never came back, is finished exactly once by the completer; a client's later retry
 * replays it. A store's test runs it by implementing this interface beside {@link StoreFixture}:
 * {@code class PostgresCompleterContractTest extends StoreFixture implements CompleterContract}.
 *
 * <p>Owners "die" by stopping in the middle (their lease not renewed) or by failing past a checkpoint;
 * leases of 300 ms and a delay of 200 ms keep it short. Every wait is for a condition, with a deadline
 * far beyond what a loaded machine needs.
 */
public interface CompleterContract {
    Duration LEASE = Duration.ofMillis(300);
    Duration DELAY = Duration.ofMillis(200);
    Duration POLL = Duration.ofMillis(25);
    Duration DEADLINE = Duration.ofSeconds(30);

    /** The running test's fresh store ({@link StoreFixture#store()}); it must implement {@code StoreAdministration}. */
    IdempotencyStore store();

    @Test
    @DisplayName("completer: an owner that dies after its charge phase is completed once, resuming after the charge; the client's retry replays that response")
    default void completesAnAbandonedOperationOnce() throws Exception {
        Effects effects = new Effects();
        CountDownLatch ownerMayGoOn = new CountDownLatch(1);
        OperationRegistry registry = payments(effects, run -> await(ownerMayGoOn));
        Call call = new Call("order-1");
        Idem owner = engine(false);
        FutureTask<Outcome> ownerRun = new FutureTask<>(() -> owner.execute(call.scope, call.key, call.fingerprint(),
                registry.operation("pay", call.input)));
        Thread ownerThread = new Thread(ownerRun, "abandoning-owner");
        ownerThread.setDaemon(true);
        ownerThread.start();
        // The checkpoint, not the effect: a completer started between the two could take over and charge again.
        awaitTrue("the owner's charge is checkpointed", () -> store().find(call.id()).flatMap(IdempotencyRecord::recoveryPoint)
                .filter(point -> point.phase().equals("charge")).isPresent());

        Events events = new Events();
        try (Completer completer = completer(engine(true), registry, 5, events).start()) {
            awaitTrue("the completer completed the record", () -> completer.status().completed() == 1);
            assertThat(events.all).containsExactly("completed attempt 2");
        }
        ownerMayGoOn.countDown();
        assertThatThrownBy(ownerRun::get).isInstanceOf(ExecutionException.class).hasCauseInstanceOf(LeaseLostException.class);

        assertThat(effects.count("charge:order-1")).as("the charge ran once: the completer resumed after its checkpoint").isEqualTo(1);
        assertThat(effects.count("receipt:order-1")).isEqualTo(1);
        Outcome retry = engine(true).execute(call.scope, call.key, call.fingerprint(), registry.operation("pay", call.input));
        assertThat(retry).isInstanceOf(Outcome.Replayed.class);
        assertThat(body(((Outcome.Replayed) retry).response())).isEqualTo("paid order-1 by attempt 2 with " + effects.chargeId("order-1"));
        assertThat(effects.count("charge:order-1")).isEqualTo(1);
    }

    @Test
    @DisplayName("completer: two completers over one store racing for the same abandoned records run each operation's effects once")
    default void twoCompletersRunEachOperationOnce() throws Exception {
        Effects effects = new Effects();
        OperationRegistry registry = payments(effects, run -> {
            throw new IllegalStateException("owner crashed after its charge");
        });
        List<Call> calls = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            Call call = new Call("order-" + i);
            calls.add(call);
            assertThatThrownBy(() -> engine(false).execute(call.scope, call.key, call.fingerprint(), registry.operation("pay", call.input)))
                    .hasMessageContaining("owner crashed");
        }
        try (Completer first = completer(engine(true), registry, 5, new Events()).start();
             Completer second = completer(engine(true), registry, 5, new Events()).start()) {
            awaitTrue("the completers completed as many records as there are",
                    () -> first.status().completed() + second.status().completed() >= calls.size());
            assertThat(first.status().completed() + second.status().completed()).as("each record completed by one of them").isEqualTo(calls.size());
            assertThat(calls).allSatisfy(c -> assertThat(state(c)).isEqualTo(RecordState.COMPLETED));
        }
        try (Completer late = completer(engine(true), registry, 5, new Events())) {
            assertThat(late.completeOnce()).as("nothing is left to complete").isZero();
        }
        for (Call call : calls) {
            assertThat(effects.count("charge:" + call.input)).as("charge of " + call.input).isEqualTo(1);
            assertThat(effects.count("receipt:" + call.input)).as("receipt of " + call.input).isEqualTo(1);
        }
    }

    @Test
    @DisplayName("completer: a record naming an operation the registry does not know is never run; it is reported and stays in progress")
    default void neverRunsAnUnregisteredOperation() throws Exception {
        Effects effects = new Effects();
        OperationRegistry ownerRegistry = OperationRegistry.builder().register("refund", InputCodec.UTF8, (run, input) -> {
            run.phase("reserve", k -> effects.bump("reserve:" + input));
            if (run.attempt() == 1) {
                throw new IllegalStateException("owner crashed after its reservation");
            }
            effects.bump("refund:" + input);
            return StoredResponse.of(200, new byte[0]);
        }).build();
        Call call = new Call("refund-1");
        assertThatThrownBy(() -> engine(false).execute(call.scope, call.key, call.fingerprint(), ownerRegistry.operation("refund", call.input)))
                .hasMessageContaining("owner crashed");

        Events events = new Events();
        try (Completer completer = completer(engine(true), payments(effects, run -> { }), 5, events).start()) {
            awaitTrue("the completer reported the unregistered operation", () -> events.all.contains("unregistered refund"));
            long polls = completer.status().polls();
            awaitTrue("three more polls", () -> completer.status().polls() >= polls + 3);
            assertThat(completer.status().unregistered()).isEqualTo(1);
            assertThat(completer.status().completed()).isZero();
        }
        assertThat(events.all).containsExactly("unregistered refund");
        assertThat(effects.count("refund:refund-1")).isZero();
        IdempotencyRecord record = store().find(call.id()).orElseThrow();
        assertThat(record.state()).isEqualTo(RecordState.IN_PROGRESS);
        assertThat(record.attempt()).as("not even taken over").isEqualTo(1);
    }

    @Test
    @DisplayName("completer: an operation that keeps failing gets maxAttempts attempts in all, then is parked in progress and reported once")
    default void parksAnOperationThatKeepsFailing() throws Exception {
        Effects effects = new Effects();
        OperationRegistry registry = OperationRegistry.builder().register("flaky", InputCodec.UTF8, (run, input) -> {
            run.phase("charge", k -> effects.bump("charge:" + input));
            effects.bump("confirm:" + input);
            throw new IllegalStateException("the confirmation service is down");
        }).build();
        Call call = new Call("flaky-1");
        assertThatThrownBy(() -> engine(false).execute(call.scope, call.key, call.fingerprint(), registry.operation("flaky", call.input)))
                .hasMessageContaining("is down");

        Events events = new Events();
        try (Completer completer = completer(engine(true), registry, 3, events).start()) {
            awaitTrue("the record is parked", () -> events.all.contains("parked attempt 3"));
            long polls = completer.status().polls();
            awaitTrue("three more polls", () -> completer.status().polls() >= polls + 3);
            assertThat(completer.status().failed()).isEqualTo(2);
            assertThat(completer.status().parked()).isEqualTo(1);
        }
        assertThat(events.all).containsExactly("failed attempt 2", "failed attempt 3", "parked attempt 3");
        assertThat(effects.count("confirm:flaky-1")).as("the owner's attempt and the completer's two").isEqualTo(3);
        assertThat(effects.count("charge:flaky-1")).isEqualTo(1);
        IdempotencyRecord record = store().find(call.id()).orElseThrow();
        assertThat(record.state()).isEqualTo(RecordState.IN_PROGRESS);
        assertThat(record.attempt()).isEqualTo(3);
    }

    private Idem engine(boolean renewLeases) {
        return Idem.builder().store(store()).lease(LEASE).retention(Duration.ofMinutes(10)).renewLeases(renewLeases).build();
    }

    private static Completer completer(Idem idem, OperationRegistry registry, int maxAttempts, Events events) {
        return Completer.builder(idem, registry).delay(DELAY).pollInterval(POLL).maxAttempts(maxAttempts)
                .maxBackoff(DELAY.multipliedBy(2)).listener(events).build();
    }

    /**
     * "pay": a charge phase, then {@code onFirstAttempt} (where an owner dies), then a receipt phase;
     * the response names the attempt that completed and the charge's id.
     */
    private static OperationRegistry payments(Effects effects, FirstAttempt onFirstAttempt) {
        CompletableOperation<String> pay = (run, input) -> {
            String charge = run.phase("charge", downstreamKey -> {
                effects.bump("charge:" + input);
                effects.chargeIds.put(input, downstreamKey);
                return downstreamKey;
            });
            if (run.attempt() == 1) {
                onFirstAttempt.run(run);
            }
            run.phase("receipt", k -> effects.bump("receipt:" + input));
            return StoredResponse.of(201, ("paid " + input + " by attempt " + run.attempt() + " with " + charge).getBytes(StandardCharsets.UTF_8));
        };
        return OperationRegistry.builder().register("pay", InputCodec.UTF8, pay).build();
    }

    private RecordState state(Call call) {
        return store().find(call.id()).map(IdempotencyRecord::state).orElse(null);
    }

    private static String body(StoredResponse response) {
        return new String(response.body(), StandardCharsets.UTF_8);
    }

    private static void await(CountDownLatch latch) {
        try {
            if (!latch.await(DEADLINE.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new AssertionError("the owner was never let go on");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        }
    }

    private static void awaitTrue(String what, BooleanSupplier condition) {
        long deadline = System.nanoTime() + DEADLINE.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("not within " + DEADLINE + ": " + what);
            }
            try {
                Thread.sleep(10);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted waiting for: " + what, e);
            }
        }
    }

    /** What an operation does on its first attempt between its phases. */
    @FunctionalInterface
    interface FirstAttempt {
        void run(dev.idem.Execution execution);
    }

    /** One client request: its own scope, key and input. */
    final class Call {
        final Scope scope = Scope.of("completer-" + UUID.randomUUID(), "POST /payments");
        final IdempotencyKey key = IdempotencyKey.of("key-" + UUID.randomUUID());
        final String input;

        Call(String input) {
            this.input = input;
        }

        Fingerprint fingerprint() {
            return Fingerprint.builder().part("body", input).build();
        }

        RecordKey id() {
            return new RecordKey(scope, key);
        }
    }

    /** How often each effect ran, counted in this JVM (every owner and completer of a test runs in it). */
    final class Effects {
        private final Map<String, AtomicInteger> counts = new ConcurrentHashMap<>();
        final Map<String, String> chargeIds = new ConcurrentHashMap<>();

        String bump(String effect) {
            return Integer.toString(counts.computeIfAbsent(effect, e -> new AtomicInteger()).incrementAndGet());
        }

        int count(String effect) {
            AtomicInteger count = counts.get(effect);
            return count == null ? 0 : count.get();
        }

        String chargeId(String input) {
            return chargeIds.get(input);
        }
    }

    /** The completer's events, in order, without scopes (each test has records of its own). */
    final class Events implements Completer.Listener {
        final List<String> all = new CopyOnWriteArrayList<>();

        @Override
        public void completed(Scope scope, int attempt) {
            all.add("completed attempt " + attempt);
        }

        @Override
        public void failed(Scope scope, int attempt, Throwable failure) {
            all.add("failed attempt " + attempt);
        }

        @Override
        public void parked(RecordSummary record) {
            all.add("parked attempt " + record.attempt());
        }

        @Override
        public void unregistered(Scope scope, String operation) {
            all.add("unregistered " + operation);
        }
    }
}
