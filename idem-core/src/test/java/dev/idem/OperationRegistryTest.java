package dev.idem;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.spi.IdempotencyRecord;
import dev.idem.spi.RecordKey;
import dev.idem.spi.RecordState;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class OperationRegistryTest {
    private static final CompletableOperation<String> ECHO = (run, input) -> StoredResponse.of(200, input.getBytes(StandardCharsets.UTF_8));

    private final FakeStore store = new FakeStore();
    private final Idem idem = Idem.builder().store(store).renewLeases(false).build();
    private final Scope scope = Scope.of("alice", "POST /orders");
    private final IdempotencyKey key = IdempotencyKey.of("secret-key-1");

    @Test
    @DisplayName("register refuses a null, empty, non-ASCII or over-long name, naming the rule")
    void registerValidatesTheName() {
        assertThatThrownBy(() -> OperationRegistry.builder().register(null, InputCodec.UTF8, ECHO))
                .isInstanceOf(NullPointerException.class).hasMessageContaining("operation name is null");
        assertThatThrownBy(() -> OperationRegistry.builder().register("", InputCodec.UTF8, ECHO))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("operation name").hasMessageContaining("empty");
        assertThatThrownBy(() -> OperationRegistry.builder().register("charge card", InputCodec.UTF8, ECHO))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("a space at position 6");
        assertThatThrownBy(() -> OperationRegistry.builder().register("x".repeat(65), InputCodec.UTF8, ECHO))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("at most 64");
    }

    @Test
    @DisplayName("register refuses a duplicate name, a null codec or operation; build refuses an empty registry")
    void registerValidatesTheRest() {
        assertThatThrownBy(() -> OperationRegistry.builder().register("charge", InputCodec.UTF8, ECHO).register("charge", InputCodec.UTF8, ECHO))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("operation 'charge' is registered twice");
        assertThatThrownBy(() -> OperationRegistry.builder().register("charge", null, ECHO))
                .isInstanceOf(NullPointerException.class).hasMessage("codec of operation 'charge' is null");
        assertThatThrownBy(() -> OperationRegistry.builder().register("charge", InputCodec.UTF8, null))
                .isInstanceOf(NullPointerException.class).hasMessage("operation 'charge' is null");
        assertThatThrownBy(() -> OperationRegistry.builder().build())
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("no operation registered");
    }

    @Test
    @DisplayName("operation refuses an unknown name, a null input, an input of the wrong type and an input over 1 MiB, without repeating the input")
    void operationValidatesItsArguments() {
        OperationRegistry registry = OperationRegistry.builder().register("charge", InputCodec.UTF8, ECHO).build();
        assertThatThrownBy(() -> registry.operation("refund", "card-4242"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("no operation named 'refund'")
                .hasMessageContaining("[charge]").hasMessageNotContaining("card-4242");
        assertThatThrownBy(() -> registry.operation("charge", null))
                .isInstanceOf(NullPointerException.class).hasMessage("input of operation 'charge' is null");
        assertThatThrownBy(() -> registry.operation("charge", 42L))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("is a java.lang.Long").hasMessageNotContaining("42");
        String huge = "x".repeat(OperationRegistry.MAX_INPUT_BYTES + 1);
        assertThatThrownBy(() -> registry.operation("charge", huge))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("more than 1048576");
        assertThat(registry.names()).containsExactly("charge");
        assertThat(registry.contains("charge")).isTrue();
        assertThat(registry.contains(null)).isFalse();
    }

    @Test
    @DisplayName("the codecs give back what they stored: UTF-8 text beyond ASCII, and bytes copied both ways")
    void codecsRoundTrip() {
        String text = "Zürich → 東京";
        assertThat(InputCodec.UTF8.decode(InputCodec.UTF8.encode(text))).isEqualTo(text);
        byte[] bytes = {1, 2, 3};
        byte[] encoded = InputCodec.BYTES.encode(bytes);
        bytes[0] = 9;
        assertThat(InputCodec.BYTES.decode(encoded)).containsExactly(1, 2, 3);
    }

    @Test
    @DisplayName("the input is checkpointed with the claim before the operation's code runs, and the code gets it decoded")
    void inputIsStoredBeforeTheCodeRuns() {
        List<String> seen = new ArrayList<>();
        OperationRegistry registry = OperationRegistry.builder().register("charge", InputCodec.UTF8, (run, input) -> {
            IdempotencyRecord record = store.find(new RecordKey(scope, key)).orElseThrow();
            seen.add(record.recoveryPoint().orElseThrow().phase());
            seen.add(input);
            return StoredResponse.of(201, new byte[0]);
        }).build();

        Outcome outcome = idem.execute(scope, key, Fingerprint.none(), registry.operation("charge", "order-7"));

        assertThat(outcome).isInstanceOf(Outcome.Executed.class);
        assertThat(seen).containsExactly("idem:input", "order-7");
        assertThat(store.find(new RecordKey(scope, key)).orElseThrow().state()).isEqualTo(RecordState.COMPLETED);
    }

    @Test
    @DisplayName("a failed registered operation keeps its record, lease ended; the retry resumes it with the stored input, not its own")
    void aFailureKeepsTheRecordForTheRetry() {
        List<String> inputs = new ArrayList<>();
        OperationRegistry registry = OperationRegistry.builder().register("charge", InputCodec.UTF8, (run, input) -> {
            inputs.add(input + "@" + run.attempt());
            if (run.attempt() == 1) {
                throw new IllegalStateException("gateway down");
            }
            return StoredResponse.of(201, input.getBytes(StandardCharsets.UTF_8));
        }).build();
        assertThatThrownBy(() -> idem.execute(scope, key, Fingerprint.none(), registry.operation("charge", "first")))
                .hasMessage("gateway down");
        IdempotencyRecord kept = store.find(new RecordKey(scope, key)).orElseThrow();
        assertThat(kept.state()).isEqualTo(RecordState.IN_PROGRESS);
        assertThat(kept.leaseUntil()).isBeforeOrEqualTo(store.now());
        assertThat(OperationRegistry.storedName(kept.recoveryPoint())).hasValue("charge");

        Outcome retry = idem.execute(scope, key, Fingerprint.none(), registry.operation("charge", "second"));

        assertThat(((Outcome.Executed) retry).response().body()).isEqualTo("first".getBytes(StandardCharsets.UTF_8));
        assertThat(inputs).containsExactly("first@1", "first@2");
    }

    @Test
    @DisplayName("an operation's own phase may not use the reserved name of the stored input")
    void theInputPhaseNameIsReserved() {
        Operation operation = run -> {
            run.phase("idem:input", k -> "x");
            return StoredResponse.of(200, new byte[0]);
        };
        assertThatThrownBy(() -> idem.execute(scope, key, Fingerprint.none(), operation))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'idem:input' is reserved");
    }

    @Test
    @DisplayName("the live variant stores the input as operation(name, input) does but runs the caller's code; a failure keeps the record")
    void liveVariantStoresTheInputAndRunsTheCallersCode() {
        List<String> ran = new ArrayList<>();
        OperationRegistry registry = OperationRegistry.builder().register("charge", InputCodec.UTF8, (run, input) -> {
            ran.add("registered:" + input);
            return StoredResponse.of(201, input.getBytes(StandardCharsets.UTF_8));
        }).build();
        Operation live = registry.operation("charge", "order-7", run -> {
            ran.add("live@" + run.attempt() + ":" + store.find(new RecordKey(scope, key)).orElseThrow().recoveryPoint().orElseThrow().phase());
            throw new IllegalStateException("died after the claim");
        });

        assertThatThrownBy(() -> idem.execute(scope, key, Fingerprint.none(), live)).hasMessage("died after the claim");

        IdempotencyRecord kept = store.find(new RecordKey(scope, key)).orElseThrow();
        assertThat(kept.state()).isEqualTo(RecordState.IN_PROGRESS);
        assertThat(kept.leaseUntil()).isBeforeOrEqualTo(store.now());
        assertThat(OperationRegistry.storedName(kept.recoveryPoint())).hasValue("charge");
        assertThat(ran).containsExactly("live@1:idem:input");
    }

    @Test
    @DisplayName("on a takeover the live variant's retry runs its own code again, and the completer's runs the registered operation with the stored input")
    void liveVariantTakeovers() {
        List<String> ran = new ArrayList<>();
        OperationRegistry registry = OperationRegistry.builder().register("charge", InputCodec.UTF8, (run, input) -> {
            ran.add("registered@" + run.attempt() + ":" + input + ":resumed=" + run.resumed());
            return StoredResponse.of(201, input.getBytes(StandardCharsets.UTF_8));
        }).build();
        IdempotencyKey other = IdempotencyKey.of("secret-key-2");
        for (IdempotencyKey k : List.of(key, other)) {
            assertThatThrownBy(() -> idem.execute(scope, k, Fingerprint.none(), registry.operation("charge", "first", run -> {
                throw new IllegalStateException("died");
            }))).hasMessage("died");
        }

        Outcome retry = idem.execute(scope, key, Fingerprint.none(), registry.operation("charge", "second", run -> {
            ran.add("live@" + run.attempt() + ":resumed=" + run.resumed());
            return StoredResponse.of(201, "live".getBytes(StandardCharsets.UTF_8));
        }));
        Outcome completed = idem.execute(scope, other, Fingerprint.none(), registry.resumeStored());

        assertThat(((Outcome.Executed) retry).response().body()).isEqualTo("live".getBytes(StandardCharsets.UTF_8));
        assertThat(((Outcome.Executed) completed).response().body()).isEqualTo("first".getBytes(StandardCharsets.UTF_8));
        assertThat(ran).containsExactly("live@2:resumed=true", "registered@2:first:resumed=true");
        assertThat(store.find(new RecordKey(scope, other)).orElseThrow().state()).isEqualTo(RecordState.COMPLETED);
    }

    @Test
    @DisplayName("the live variant validates as operation(name, input) does, and refuses a takeover of another operation's record")
    void liveVariantValidates() {
        OperationRegistry registry = OperationRegistry.builder().register("charge", InputCodec.UTF8, ECHO).register("refund", InputCodec.UTF8, ECHO).build();
        Operation ok = run -> StoredResponse.of(200, new byte[0]);
        assertThatThrownBy(() -> registry.operation("void", "x", ok))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("no operation named 'void'");
        assertThatThrownBy(() -> registry.operation("charge", null, ok))
                .isInstanceOf(NullPointerException.class).hasMessage("input of operation 'charge' is null");
        assertThatThrownBy(() -> registry.operation("charge", "x", null))
                .isInstanceOf(NullPointerException.class).hasMessage("the live code of operation 'charge' is null");
        assertThatThrownBy(() -> idem.execute(scope, key, Fingerprint.none(), registry.operation("charge", "x", run -> {
            throw new IllegalStateException("died");
        }))).hasMessage("died");
        assertThatThrownBy(() -> idem.execute(scope, key, Fingerprint.none(), registry.operation("refund", "x", ok)))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("holds the input of operation 'charge', not of 'refund'");
    }
}
