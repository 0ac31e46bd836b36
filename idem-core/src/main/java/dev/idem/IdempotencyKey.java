package dev.idem;

/**
 * A client-chosen idempotency key: 1 to 255 visible ASCII characters ({@code 0x21–0x7E}).
 *
 * <p>{@link #parse(String)} also accepts the Structured Field string form that
 * {@code draft-ietf-httpapi-idempotency-key-header} uses on the wire ({@code "abc"}, with
 * {@code \"} and {@code \\} escapes); the quotes are not part of the key.
 *
 * <p>{@link #toString()} does not reveal the value: keys must stay out of logs. Use
 * {@link #value()} where the value is really needed.
 */
public final class IdempotencyKey {
    public static final int MAX_LENGTH = 255;

    private final String value;

    private IdempotencyKey(String value) {
        this.value = value;
    }

    /** Accepts a bare key or its sf-string form. */
    public static IdempotencyKey parse(String raw) {
        if (raw == null) {
            throw InvalidKeyException.of("idempotency key", "it is missing (null)");
        }
        if (raw.length() >= 2 && raw.charAt(0) == '"') {
            return of(unquote(raw));
        }
        return of(raw);
    }

    /** Accepts a bare key only. */
    public static IdempotencyKey of(String value) {
        if (value == null) {
            throw InvalidKeyException.of("idempotency key", "it is missing (null)");
        }
        checkVisibleAscii("idempotency key", value, MAX_LENGTH);
        return new IdempotencyKey(value);
    }

    static void checkVisibleAscii(String what, String value, int maxLength) {
        if (value.isEmpty()) {
            throw InvalidKeyException.of(what, "it is empty; 1 to " + maxLength + " visible ASCII characters are required");
        }
        if (value.length() > maxLength) {
            throw InvalidKeyException.of(what, "it has " + value.length() + " characters; at most " + maxLength + " are allowed");
        }
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c < 0x21 || c > 0x7E) {
                throw InvalidKeyException.of(what, describe(c) + " at position " + i
                        + "; only visible ASCII (0x21-0x7E) is allowed");
            }
        }
    }

    private static String describe(char c) {
        if (c == ' ') {
            return "a space";
        }
        if (c < 0x20 || c == 0x7F) {
            return "a control character";
        }
        return "a non-ASCII character";
    }

    private static String unquote(String raw) {
        if (raw.charAt(raw.length() - 1) != '"') {
            throw InvalidKeyException.of("idempotency key", "an sf-string must end with a double quote");
        }
        StringBuilder out = new StringBuilder(raw.length() - 2);
        for (int i = 1; i < raw.length() - 1; i++) {
            char c = raw.charAt(i);
            if (c == '\\') {
                if (i + 1 >= raw.length() - 1) {
                    throw InvalidKeyException.of("idempotency key", "an sf-string ends with a lone backslash");
                }
                char next = raw.charAt(++i);
                if (next != '"' && next != '\\') {
                    throw InvalidKeyException.of("idempotency key",
                            "an sf-string may escape only '\"' and '\\' (position " + i + ")");
                }
                out.append(next);
            } else if (c == '"') {
                throw InvalidKeyException.of("idempotency key", "an unescaped double quote inside the sf-string at position " + i);
            } else {
                out.append(c);
            }
        }
        return out.toString();
    }

    public String value() {
        return value;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof IdempotencyKey other && value.equals(other.value);
    }

    @Override
    public int hashCode() {
        return value.hashCode();
    }

    /** Redacted: shows the length only. */
    @Override
    public String toString() {
        return "IdempotencyKey[" + value.length() + " chars]";
    }
}
