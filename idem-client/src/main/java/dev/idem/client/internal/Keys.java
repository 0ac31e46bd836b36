package dev.idem.client.internal;

import java.net.http.HttpRequest;
import java.util.List;
import java.util.Objects;
import java.util.UUID;

/**
 * Key and header-name rules. Messages say which rule was broken and where, never the rejected
 * value: an idempotency key identifies a payment and must stay out of logs.
 */
public final class Keys {
    /** The longest key the IETF draft and idem's server accept. */
    public static final int MAX_LENGTH = 255;

    private Keys() {
    }

    /** A fresh UUIDv4; {@link UUID#randomUUID()} draws from {@link java.security.SecureRandom}, so keys are unguessable. */
    public static String generate() {
        return UUID.randomUUID().toString();
    }

    /**
     * Checks a caller-supplied key: 1 to 255 visible ASCII characters (0x21–0x7E). The key is sent
     * verbatim, so an sf-string form ({@code "abc"}) passes through with its quotes.
     */
    public static String check(String key) {
        Objects.requireNonNull(key, "idempotency key is null");
        if (key.isEmpty()) {
            throw invalid("it is empty; 1 to " + MAX_LENGTH + " visible ASCII characters are required");
        }
        if (key.length() > MAX_LENGTH) {
            throw invalid("it has " + key.length() + " characters; at most " + MAX_LENGTH + " are allowed");
        }
        for (int i = 0; i < key.length(); i++) {
            char c = key.charAt(i);
            if (c < 0x21 || c > 0x7E) {
                throw invalid(describe(c) + " at position " + i + "; only visible ASCII (0x21-0x7E) is allowed");
            }
        }
        return key;
    }

    /**
     * The key a request already carries in {@code headerName}, checked, or {@code null} when it
     * carries none.
     */
    public static String fromHeaders(HttpRequest request, String headerName) {
        return fromValues(request.headers().allValues(headerName), headerName);
    }

    /** As {@link #fromHeaders}, from all values of the header as any HTTP library lists them (none: null or empty). */
    public static String fromValues(List<String> values, String headerName) {
        if (values == null || values.isEmpty()) {
            return null;
        }
        if (values.size() > 1) {
            throw new IllegalArgumentException("the request carries " + values.size() + " " + headerName
                    + " headers; a logical request has exactly one idempotency key");
        }
        return check(values.get(0));
    }

    /**
     * A header name must be an RFC 9110 token that {@link HttpRequest.Builder#header} accepts (the
     * JDK refuses restricted names such as {@code Host} or {@code Connection}).
     */
    public static String checkHeaderName(String name) {
        Objects.requireNonNull(name, "headerName is null");
        if (name.isEmpty()) {
            throw new IllegalArgumentException("headerName must not be empty");
        }
        for (int i = 0; i < name.length(); i++) {
            if (!isTokenChar(name.charAt(i))) {
                throw new IllegalArgumentException("headerName must be an HTTP token, was '" + printable(name)
                        + "' (bad character at position " + i + ")");
            }
        }
        try {
            HttpRequest.newBuilder().header(name, "x");
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("headerName '" + name + "' is refused by java.net.http: " + e.getMessage(), e);
        }
        return name;
    }

    private static boolean isTokenChar(char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
                || "!#$%&'*+-.^_`|~".indexOf(c) >= 0;
    }

    // A header name is configuration, not a secret, so it may be shown; only control characters are masked.
    private static String printable(String s) {
        StringBuilder out = new StringBuilder(s.length());
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            out.append(c < 0x20 || c == 0x7F ? '?' : c);
        }
        return out.toString();
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

    private static IllegalArgumentException invalid(String rule) {
        return new IllegalArgumentException("idempotency key is invalid: " + rule);
    }
}
