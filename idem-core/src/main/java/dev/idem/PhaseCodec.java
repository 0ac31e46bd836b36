package dev.idem;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * Turns a phase's result into the bytes checkpointed in the store and back, so a resumed
 * operation gets the same value without re-running the phase.
 */
public interface PhaseCodec<T> {
    byte[] encode(T value);

    T decode(byte[] bytes);

    PhaseCodec<String> STRING = new PhaseCodec<>() {
        @Override
        public byte[] encode(String value) {
            return requireResult(value).getBytes(StandardCharsets.UTF_8);
        }

        @Override
        public String decode(byte[] bytes) {
            return new String(bytes, StandardCharsets.UTF_8);
        }
    };

    PhaseCodec<Long> LONG = new PhaseCodec<>() {
        @Override
        public byte[] encode(Long value) {
            return ByteBuffer.allocate(Long.BYTES).putLong(requireResult(value)).array();
        }

        @Override
        public Long decode(byte[] bytes) {
            return ByteBuffer.wrap(bytes).getLong();
        }
    };

    PhaseCodec<byte[]> BYTES = new PhaseCodec<>() {
        @Override
        public byte[] encode(byte[] value) {
            return requireResult(value).clone();
        }

        @Override
        public byte[] decode(byte[] bytes) {
            return bytes.clone();
        }
    };

    private static <V> V requireResult(V value) {
        if (value == null) {
            throw new IllegalArgumentException("a phase returned null; return a value its codec can store");
        }
        return value;
    }
}
