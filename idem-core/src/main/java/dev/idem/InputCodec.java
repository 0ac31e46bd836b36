package dev.idem;

import java.nio.charset.StandardCharsets;

/**
 * Turns a registered operation's input into the bytes stored with its claim and back, so that a
 * {@link Completer} can run the operation again from the store alone. {@link #UTF8} stores text as
 * is; for anything else, encode it to bytes (JSON, a protocol buffer) in a codec of your own.
 *
 * <p>A codec must be deterministic in one direction only: {@code decode(encode(x))} must give back
 * an input that the operation treats as {@code x}, in this JVM and in a later version of the
 * application that still registers the operation.
 */
public interface InputCodec<T> {

    /** The input as bytes to store; never null. */
    byte[] encode(T input);

    /** The input from the stored bytes. */
    T decode(byte[] bytes);

    /** Text, stored as its UTF-8 bytes. */
    InputCodec<String> UTF8 = new InputCodec<>() {
        @Override
        public byte[] encode(String input) {
            return input.getBytes(StandardCharsets.UTF_8);
        }

        @Override
        public String decode(byte[] bytes) {
            return new String(bytes, StandardCharsets.UTF_8);
        }

        @Override
        public String toString() {
            return "InputCodec.UTF8";
        }
    };

    /** Bytes, stored as they are (copied both ways, so neither side can change the other's array). */
    InputCodec<byte[]> BYTES = new InputCodec<>() {
        @Override
        public byte[] encode(byte[] input) {
            return input.clone();
        }

        @Override
        public byte[] decode(byte[] bytes) {
            return bytes.clone();
        }

        @Override
        public String toString() {
            return "InputCodec.BYTES";
        }
    };
}
