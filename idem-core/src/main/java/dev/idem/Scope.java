package dev.idem;

import java.util.Objects;

/**
 * The namespace of a key: who asked (principal) and for what (operation, e.g. {@code POST /payments}).
 * The same key under another scope is another record, so a replay never crosses principals.
 *
 * <p>Scopes appear in exception messages and metrics, so they must not carry secrets: pass a
 * principal's id, or a hash of a credential, never the credential itself.
 */
public final class Scope {
    public static final int MAX_LENGTH = 512;
    private static final char SEPARATOR = ' ';

    private final String value;

    private Scope(String value) {
        this.value = value;
    }

    /**
     * A scope made of a principal and an operation, e.g. {@code Scope.of("user-42", "POST /payments")}.
     * The first space of the scope separates the two; spaces (and {@code %}) in the principal are
     * percent-encoded, so two different (principal, operation) pairs never make the same scope:
     * {@code ("John Smith", "POST /x")} is {@code John%20Smith POST /x}.
     *
     * <p>This keeps principal strings apart, not kinds of principal: a caller scoping by more than
     * one kind (users, credential digests, no principal) must make their strings distinct itself, as
     * the servlet module's {@code ScopeResolver} does with {@code user:<name>},
     * {@code credential:sha256:<hex>} and {@code anonymous}; otherwise a user can be named into
     * another principal's scope.
     */
    public static Scope of(String principal, String operation) {
        checkPart("scope principal", principal);
        checkPart("scope operation", operation);
        return parse(principal.replace("%", "%25").replace(" ", "%20") + SEPARATOR + operation);
    }

    /** A scope from its stored form ({@link #value()}). */
    public static Scope parse(String value) {
        checkPart("scope", value);
        if (value.length() > MAX_LENGTH) {
            throw InvalidKeyException.of("scope", "it has " + value.length() + " characters; at most " + MAX_LENGTH + " are allowed");
        }
        return new Scope(value);
    }

    private static void checkPart(String what, String part) {
        if (part == null || part.isEmpty()) {
            throw InvalidKeyException.of(what, "it is missing or empty");
        }
        for (int i = 0; i < part.length(); i++) {
            if (Character.isISOControl(part.charAt(i))) {
                throw InvalidKeyException.of(what, "a control character at position " + i);
            }
        }
    }

    public String value() {
        return value;
    }

    /**
     * The operation part: what follows the first space ({@code POST /payments} of
     * {@code user:42 POST /payments}), or the whole value if it has no space. Metrics and traces use
     * it instead of the value, which names a principal.
     */
    public String operation() {
        int space = value.indexOf(SEPARATOR);
        return space < 0 || space == value.length() - 1 ? value : value.substring(space + 1);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Scope other && value.equals(other.value);
    }

    @Override
    public int hashCode() {
        return Objects.hash(value);
    }

    @Override
    public String toString() {
        return value;
    }
}
