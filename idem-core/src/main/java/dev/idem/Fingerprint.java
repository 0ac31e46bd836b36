package dev.idem;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Objects;

/**
 * A versioned digest of a request's identity: SHA-256 over named parts (method, route, query,
 * content type, body…), each length-prefixed so that no two different part lists hash alike.
 * A retry must produce the same fingerprint; the same key with another fingerprint is a misuse
 * ({@code Mismatch}).
 *
 * <p>The text form is {@code v1:<64 hex digits>}. Canonicalising a body (JSON key order,
 * whitespace) is the caller's job before {@link Builder#part(String, byte[])}.
 */
public final class Fingerprint {
    static final String VERSION = "v1";

    private final String value;

    private Fingerprint(String value) {
        this.value = value;
    }

    public static Builder builder() {
        return new Builder();
    }

    /** A fingerprint from its text form, as stored. */
    public static Fingerprint parse(String text) {
        if (text == null || !text.matches("v[0-9]+:[0-9a-f]{64}")) {
            throw InvalidKeyException.of("fingerprint", "expected 'v<version>:<64 lowercase hex digits>'");
        }
        return new Fingerprint(text);
    }

    /** A fingerprint for operations whose identity is the key alone. */
    public static Fingerprint none() {
        return builder().build();
    }

    public String value() {
        return value;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Fingerprint other && value.equals(other.value);
    }

    @Override
    public int hashCode() {
        return Objects.hashCode(value);
    }

    @Override
    public String toString() {
        return value;
    }

    /** Collects named parts in order. Not thread-safe; single use. */
    public static final class Builder {
        /**
         * A digest that has taken the version part, copied for each builder: a provider lookup per
         * request ({@code MessageDigest.getInstance}) cost more than hashing a small request. Never
         * updated itself, so concurrent copies see the same state. Null if the provider's digest
         * cannot be cloned: then each builder looks one up as before.
         */
        private static final MessageDigest VERSIONED = versionedPrototype();

        private final MessageDigest digest;
        private boolean built;

        private Builder() {
            MessageDigest copy = copyOfPrototype();
            if (copy != null) {
                digest = copy;
            } else {
                digest = newDigest();
                update(digest, VERSION.getBytes(StandardCharsets.US_ASCII));
            }
        }

        private static MessageDigest versionedPrototype() {
            MessageDigest prototype = newDigest();
            update(prototype, VERSION.getBytes(StandardCharsets.US_ASCII));
            try {
                prototype.clone();
                return prototype;
            } catch (CloneNotSupportedException e) {
                return null;
            }
        }

        private static MessageDigest copyOfPrototype() {
            if (VERSIONED == null) {
                return null;
            }
            try {
                return (MessageDigest) VERSIONED.clone();
            } catch (CloneNotSupportedException e) {
                return null;
            }
        }

        private static MessageDigest newDigest() {
            try {
                return MessageDigest.getInstance("SHA-256");
            } catch (NoSuchAlgorithmException e) {
                throw new IllegalStateException("SHA-256 is required of every JDK", e);
            }
        }

        /** Adds a named part, as its UTF-8 bytes; parts are hashed in the order they are added. */
        public Builder part(String name, String value) {
            Objects.requireNonNull(value, () -> "fingerprint part '" + name + "' is null");
            return part(name, value.getBytes(StandardCharsets.UTF_8));
        }

        /** Adds a named part of raw bytes; parts are hashed in the order they are added. */
        public Builder part(String name, byte[] value) {
            Objects.requireNonNull(name, "fingerprint part name is null");
            Objects.requireNonNull(value, () -> "fingerprint part '" + name + "' is null");
            if (built) {
                throw new IllegalStateException("fingerprint already built");
            }
            update(digest, name.getBytes(StandardCharsets.UTF_8));
            update(digest, value);
            return this;
        }

        /** The part's length as 4 big-endian bytes, then the part. */
        private static void update(MessageDigest digest, byte[] bytes) {
            int n = bytes.length;
            digest.update(new byte[] {(byte) (n >>> 24), (byte) (n >>> 16), (byte) (n >>> 8), (byte) n});
            digest.update(bytes);
        }

        public Fingerprint build() {
            if (built) {
                throw new IllegalStateException("fingerprint already built");
            }
            built = true;
            return new Fingerprint(VERSION + ":" + HexFormat.of().formatHex(digest.digest()));
        }
    }
}
