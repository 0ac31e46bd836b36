package dev.idem;

import dev.idem.internal.PhaseLog;
import dev.idem.spi.RecoveryPoint;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * Operations registered by name, each with the codec of its input, so that a record carries what is
 * needed to finish it without its client: the operation's name and input, stored with the claim.
 *
 * <pre>{@code
 * OperationRegistry operations = OperationRegistry.builder()
 *         .register("charge", InputCodec.UTF8, (run, orderJson) -> {
 *             String charge = run.phase("charge", k -> gateway.charge(k, amountOf(orderJson)));
 *             return StoredResponse.of(201, charge.getBytes(UTF_8));
 *         })
 *         .build();
 * Outcome outcome = idem.execute(scope, key, fingerprint, operations.operation("charge", orderJson));
 * }</pre>
 *
 * <p>The {@link Operation} that {@link #operation} returns checkpoints the name and the encoded input
 * as the reserved phase {@code idem:input} right after the claim, before the
 * registered code runs; an attempt that takes over (a client's retry or a {@link Completer}) reads
 * them back from there. Because of that checkpoint such a record is never released when the
 * operation fails: its lease is ended instead, as after any finished phase, so that a retry or the
 * completer resumes it. Immutable and thread-safe.
 */
public final class OperationRegistry {
    /** The largest encoded input stored with a claim. */
    public static final int MAX_INPUT_BYTES = 1024 * 1024;
    private static final int MAX_NAME = 64;
    private static final byte FORMAT = 1;

    private final Map<String, Registered<?>> operations;

    private OperationRegistry(Map<String, Registered<?>> operations) {
        this.operations = Map.copyOf(operations);
    }

    public static Builder builder() {
        return new Builder();
    }

    /** The registered operations' names. */
    public Set<String> names() {
        return operations.keySet();
    }

    /** Whether an operation of that name is registered. */
    public boolean contains(String name) {
        return name != null && operations.containsKey(name);
    }

    /**
     * The registered operation {@code name} bound to {@code input}, to run with {@link Idem#execute}.
     * The input is encoded here, so that a bad one fails before anything is claimed.
     *
     * @throws IllegalArgumentException if no operation of that name is registered, the input is not of
     *                                  the type its codec takes, or it encodes to more than {@link #MAX_INPUT_BYTES}
     * @throws NullPointerException     if {@code input} is null
     */
    public <T> Operation operation(String name, T input) {
        byte[] stored = storedInput(name, input);
        return execution -> run(execution, stored, name);
    }

    /** The bytes checkpointed as {@code idem:input}: the format, the name and the encoded input. */
    private byte[] storedInput(String name, Object input) {
        Registered<?> registered = operations.get(name);
        if (registered == null) {
            throw new IllegalArgumentException("no operation named '" + name + "' is registered; registered: " + names());
        }
        Objects.requireNonNull(input, () -> "input of operation '" + name + "' is null");
        return encodeStored(name, registered.encode(input));
    }

    /**
     * The registered operation {@code name}'s input stored with the claim, exactly as
     * {@link #operation(String, Object)} stores it, while the live caller runs its own code:
     * {@code runHere} runs on the first run and on a takeover by this caller (a client's retry, whose
     * live request is there to run again), whereas a {@link Completer}'s takeover runs the registered
     * {@link CompletableOperation} with the stored input. For an application whose live path and
     * completion path are two ways of running the same handler (an HTTP route: the request's own
     * filter chain live, the handler dispatched in-process from the stored request by the completer).
     *
     * <p>The rules are the registered operation's: the input is encoded here, checkpointed as
     * {@code idem:input} right after the claim, and the record is never released on failure (its
     * lease is ended, so a retry or the completer resumes it). On a takeover the stored input must name
     * this operation, else the run fails with {@link IllegalStateException}.
     *
     * @throws IllegalArgumentException as {@link #operation(String, Object)}
     * @throws NullPointerException     if {@code input} or {@code runHere} is null
     */
    public <T> Operation operation(String name, T input, Operation runHere) {
        Objects.requireNonNull(runHere, () -> "the live code of operation '" + name + "' is null");
        byte[] stored = storedInput(name, input);
        return execution -> {
            storedOperation(execution, stored, name);
            return runHere.run(execution);
        };
    }

    /** For the completer: the operation that resumes a record from the name and input stored with its claim. */
    Operation resumeStored() {
        return execution -> run(execution, null, null);
    }

    /**
     * The one path of every registered run: the stored input (this call's on a first run, an earlier
     * attempt's after a takeover), then the operation it names with the decoded input.
     */
    private StoredResponse run(Execution execution, byte[] firstRun, String expectedName) throws Exception {
        Stored stored = storedOperation(execution, firstRun, expectedName);
        return operations.get(stored.name()).run(execution, stored.input());
    }

    /**
     * Checkpoints (or, after a takeover, reads back) the stored input and checks that it names
     * {@code expectedName} (any, when null) and a registered operation.
     */
    private Stored storedOperation(Execution execution, byte[] firstRun, String expectedName) throws Exception {
        if (!(execution instanceof RunningExecution running)) {
            throw new IllegalStateException("a registered operation runs through Idem.execute, which stores its input with the claim");
        }
        Stored stored = decodeStored(running.storedInput(firstRun));
        if (expectedName != null && !expectedName.equals(stored.name())) {
            throw new IllegalStateException("the record of scope '" + execution.scope() + "' holds the input of operation '"
                    + stored.name() + "', not of '" + expectedName + "'");
        }
        Registered<?> registered = operations.get(stored.name());
        if (registered == null) {
            throw new IllegalStateException("the record of scope '" + execution.scope() + "' names operation '" + stored.name()
                    + "', which is not registered");
        }
        return stored;
    }

    /** The operation name stored with a record's claim, or empty when the record holds no stored input. */
    static Optional<String> storedName(Optional<RecoveryPoint> point) {
        if (point.isEmpty()) {
            return Optional.empty();
        }
        try {
            byte[] stored = PhaseLog.decode(point.get().state()).get(RunningExecution.INPUT_PHASE);
            return stored == null ? Optional.empty() : Optional.of(decodeStored(stored).name());
        } catch (RuntimeException notOurs) {
            // Another program's recovery state, or a corrupt one: nothing a completer may run.
            return Optional.empty();
        }
    }

    /** {@code format:byte, name:UTF, input bytes to the end}. */
    private static byte[] encodeStored(String name, byte[] input) {
        try {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream(input.length + name.length() + 3);
            DataOutputStream out = new DataOutputStream(bytes);
            out.writeByte(FORMAT);
            out.writeUTF(name);
            out.write(input);
            out.flush();
            return bytes.toByteArray();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot happen: writing to memory", e);
        }
    }

    private static Stored decodeStored(byte[] stored) {
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(stored))) {
            byte format = in.readByte();
            if (format != FORMAT) {
                throw new IllegalStateException("stored operation input has unknown format " + format);
            }
            String name = in.readUTF();
            return new Stored(name, Arrays.copyOfRange(stored, stored.length - in.available(), stored.length));
        } catch (IOException e) {
            throw new IllegalStateException("stored operation input is corrupt", e);
        }
    }

    @Override
    public String toString() {
        return "OperationRegistry" + names();
    }

    private record Stored(String name, byte[] input) {
    }

    private record Registered<T>(String name, InputCodec<T> codec, CompletableOperation<T> operation) {
        @SuppressWarnings("unchecked")
        byte[] encode(Object input) {
            byte[] encoded;
            try {
                encoded = codec.encode((T) input);
            } catch (ClassCastException e) {
                throw new IllegalArgumentException("input of operation '" + name + "' is a " + input.getClass().getName()
                        + ", which its codec " + codec + " does not take", e);
            }
            if (encoded == null) {
                throw new IllegalStateException("codec " + codec + " of operation '" + name + "' encoded an input as null");
            }
            if (encoded.length > MAX_INPUT_BYTES) {
                throw new IllegalArgumentException("input of operation '" + name + "' encodes to " + encoded.length
                        + " bytes, more than " + MAX_INPUT_BYTES + " are stored with a claim");
            }
            return encoded;
        }

        StoredResponse run(Execution execution, byte[] input) throws Exception {
            return operation.run(execution, codec.decode(input));
        }
    }

    /** Collects the operations; each name once. Not thread-safe. */
    public static final class Builder {
        private final Map<String, Registered<?>> operations = new LinkedHashMap<>();

        private Builder() {
        }

        /**
         * Registers {@code operation} as {@code name}: 1-64 visible ASCII characters, unique in the
         * registry, and stable across releases (records store it; a completer runs only the names it knows).
         */
        public <T> Builder register(String name, InputCodec<T> codec, CompletableOperation<T> operation) {
            Objects.requireNonNull(name, "operation name is null");
            try {
                IdempotencyKey.checkVisibleAscii("operation name", name, MAX_NAME);
            } catch (InvalidKeyException e) {
                throw new IllegalArgumentException(e.getMessage());
            }
            Objects.requireNonNull(codec, () -> "codec of operation '" + name + "' is null");
            Objects.requireNonNull(operation, () -> "operation '" + name + "' is null");
            if (operations.containsKey(name)) {
                throw new IllegalArgumentException("operation '" + name + "' is registered twice");
            }
            operations.put(name, new Registered<>(name, codec, operation));
            return this;
        }

        /** @throws IllegalStateException if nothing was registered */
        public OperationRegistry build() {
            if (operations.isEmpty()) {
                throw new IllegalStateException("no operation registered: OperationRegistry.builder().register(name, codec, operation)");
            }
            return new OperationRegistry(operations);
        }
    }
}
