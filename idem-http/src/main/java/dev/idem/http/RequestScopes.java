package dev.idem.http;

import dev.idem.Scope;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Objects;

/**
 * The {@link Scope} of an HTTP request, for any web stack: {@code "<principal> <METHOD> <route>"}.
 * The principal part names its kind, so distinct principals never share a scope whatever their names:
 * {@value #ANONYMOUS}; {@code user:<name>} percent-encoded (or {@code user-sha256:<hex>} when that is
 * over {@value #MAX_PRINCIPAL_LENGTH} characters); {@code credential:sha256:<hex>} of a credential.
 * The Servlet and WebFlux filters' scope resolvers are built on it, so one request has one scope
 * whichever stack it reaches. The route (a path or a route template) that is not 1–256 visible ASCII
 * characters, or that starts with {@code sha256:}, is replaced by its SHA-256.
 */
public final class RequestScopes {
    /** The principal part of the scope of a request without a principal. */
    public static final String ANONYMOUS = "anonymous";
    /** The longest principal part made of a name; a longer one is digested. */
    public static final int MAX_PRINCIPAL_LENGTH = 128;
    /** The longest route kept as it is in a scope; a longer one is digested. */
    public static final int MAX_ROUTE_LENGTH = 256;
    private static final String USER = "user:";
    private static final String USER_DIGEST = "user-sha256:";
    private static final String CREDENTIAL = "credential:sha256:";
    private static final String DIGEST = "sha256:";

    private RequestScopes() {
    }

    /**
     * The scope of a request.
     *
     * @param principal a principal part made by {@link #userPrincipal}, {@link #credentialPrincipal}, or {@value #ANONYMOUS}
     * @throws IllegalStateException if {@code route} is null or empty (a route function's mistake)
     */
    public static Scope scope(String principal, String method, String route) {
        Objects.requireNonNull(principal, "principal is null");
        if (route == null || route.isEmpty()) {
            throw new IllegalStateException("the route function returned " + (route == null ? "null" : "an empty route"));
        }
        // The principal part is visible ASCII without spaces, so the first space separates it; joined
        // as is, not through Scope.of, which would escape the encoding's '%' once more.
        return Scope.parse(principal + " " + method + " " + scopePart(route, MAX_ROUTE_LENGTH));
    }

    /**
     * The principal part of an authenticated user's scope: {@code user:} and the name
     * {@linkplain #percentEncode percent-encoded}, or, when that is longer than
     * {@value #MAX_PRINCIPAL_LENGTH} characters, {@code user-sha256:} and the SHA-256 of the name. Never equal to another name's, to
     * {@link #ANONYMOUS} or to a {@linkplain #credentialPrincipal credential's}, whatever the names:
     * each kind has its own prefix, and percent-encoding is one-to-one.
     */
    public static String userPrincipal(String name) {
        String encoded = USER + percentEncode(name);
        return encoded.length() <= MAX_PRINCIPAL_LENGTH ? encoded : USER_DIGEST + sha256Hex(name);
    }

    /**
     * The principal part of a scope by credential: {@code credential:sha256:} and the SHA-256 of the
     * credential; the credential itself is never part of a scope.
     */
    public static String credentialPrincipal(String credential) {
        return CREDENTIAL + sha256Hex(credential);
    }

    /**
     * {@code value} with every character outside visible ASCII, and {@code %} itself, replaced by the
     * {@code %XX} escapes of its UTF-8 bytes (a lone surrogate, which has none, as {@code %u} and its
     * four hex digits); a one-to-one mapping onto visible ASCII without spaces.
     */
    public static String percentEncode(String value) {
        StringBuilder out = null;
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c > 0x20 && c < 0x7F && c != '%') {
                if (out != null) {
                    out.append(c);
                }
                continue;
            }
            if (out == null) {
                out = new StringBuilder(value.length() + 16).append(value, 0, i);
            }
            if (Character.isSurrogate(c)) {
                boolean pair = Character.isHighSurrogate(c) && i + 1 < value.length() && Character.isLowSurrogate(value.charAt(i + 1));
                if (!pair) {
                    // No UTF-8 for a lone surrogate: %u and its code unit, which no %XX escape can be.
                    out.append("%u").append(HexFormat.of().withUpperCase().toHexDigits(c));
                    continue;
                }
            }
            int end = Character.isHighSurrogate(c) ? i + 2 : i + 1;
            for (byte b : value.substring(i, end).getBytes(StandardCharsets.UTF_8)) {
                out.append('%').append(HexFormat.of().withUpperCase().toHexDigits(b));
            }
            i = end - 1;
        }
        return out == null ? value : out.toString();
    }

    /**
     * {@code value} itself when it is 1 to {@code maxLength} visible ASCII characters and does not
     * start with {@code sha256:}, else {@code sha256:<hex>} of it. Scope parts must be unambiguous (no
     * spaces: the parts are joined by one), free of control characters, and short enough for
     * {@code Scope}'s limit; a digest keeps one identity per distinct value without failing the
     * request, and a value that looks like a digest is digested too, so it cannot pose as another's.
     */
    public static String scopePart(String value, int maxLength) {
        if (value.isEmpty() || value.length() > maxLength || value.startsWith(DIGEST)) {
            return DIGEST + sha256Hex(value);
        }
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c < 0x21 || c > 0x7E) {
                return DIGEST + sha256Hex(value);
            }
        }
        return value;
    }

    /** The lower-case hex SHA-256 of {@code value}'s UTF-8 bytes. */
    public static String sha256Hex(String value) {
        try {
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            return HexFormat.of().formatHex(sha.digest(value.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is required of every JDK", e);
        }
    }

    /**
     * {@code value} if it is an HTTP token (RFC 9110 §5.6.2), such as a method or a header name.
     *
     * @throws IllegalArgumentException naming {@code what} and the offending position otherwise
     */
    public static String token(String what, String value) {
        if (value == null || value.isEmpty()) {
            throw new IllegalArgumentException(what + " must be a non-empty HTTP token, was " + (value == null ? "null" : "empty"));
        }
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            boolean tchar = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
                    || "!#$%&'*+-.^_`|~".indexOf(c) >= 0;
            if (!tchar) {
                throw new IllegalArgumentException(what + " must be an HTTP token, was '" + printable(value)
                        + "' (character at position " + i + " is not allowed)");
            }
        }
        return value;
    }

    private static String printable(String value) {
        StringBuilder out = new StringBuilder();
        for (char c : value.toCharArray()) {
            out.append(c >= 0x20 && c < 0x7F ? String.valueOf(c) : String.format("\\u%04x", (int) c));
        }
        return out.toString();
    }
}
