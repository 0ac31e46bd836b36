package dev.idem.http;

import dev.idem.Fingerprint;
import dev.idem.http.internal.CanonicalJson;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;

/**
 * The identity of an HTTP request as a {@link Fingerprint}, from its parts, for any web stack: a
 * retry of the same request must produce the same one, and the same key with another fingerprint is
 * answered 422. SHA-256 (through {@link Fingerprint#builder()}) over
 * <ol>
 * <li>the method;</li>
 * <li>the path within the application — the actual path, not a route template, so one key sent to
 *     {@code /orders/1} and {@code /orders/2} is a mismatch;</li>
 * <li>the query string, its parameters decoded and sorted by name, so their order does not matter
 *     (the values of one repeated name keep their order: they may be a list);</li>
 * <li>the media type of {@code Content-Type}, lower-cased, without parameters;</li>
 * <li>the body: for {@code application/json} and {@code *+json}, canonical JSON (object members
 *     sorted by name at every depth, insignificant whitespace dropped, numbers as written); any
 *     other body byte for byte.</li>
 * </ol>
 * The Servlet filter, the WebFlux filter and the Jakarta REST filters all fingerprint through this
 * class, so one request has one fingerprint whichever stack it reaches.
 */
public final class RequestFingerprints {
    private RequestFingerprints() {
    }

    /**
     * The fingerprint of a request from its parts, with {@code canonicalBody} the bytes that identify
     * its body (see {@link #canonicalBody}).
     *
     * @param rawQuery the query string as sent (percent-encoded), or null
     * @param mediaType see {@link #mediaType}
     */
    public static Fingerprint fingerprint(String method, String path, String rawQuery, String mediaType, byte[] canonicalBody) {
        return Fingerprint.builder()
                .part("method", method)
                .part("path", path)
                .part("query", canonicalQuery(rawQuery))
                .part("content-type", mediaType)
                .part("body", canonicalBody)
                .build();
    }

    /** The media type of a Content-Type value: without parameters, trimmed, lower-cased; "" if absent. */
    public static String mediaType(String contentType) {
        if (contentType == null) {
            return "";
        }
        int semicolon = contentType.indexOf(';');
        String type = semicolon < 0 ? contentType : contentType.substring(0, semicolon);
        return type.trim().toLowerCase(Locale.ROOT);
    }

    /**
     * The bytes of {@code body} that identify it: canonical JSON for JSON media types, else the body
     * itself. An empty (or, for JSON, whitespace-only) body identifies as empty.
     *
     * @param mediaType lower-case, without parameters; "" when the request has no Content-Type
     * @throws MalformedBodyException if a JSON body is not well-formed
     */
    public static byte[] canonicalBody(String mediaType, byte[] body) {
        if (!isJson(mediaType)) {
            return body;
        }
        try {
            return CanonicalJson.canonicalize(body);
        } catch (CanonicalJson.Malformed e) {
            throw new MalformedBodyException("the request body is " + e.getMessage());
        }
    }

    /** True for {@code application/json} and structured-syntax {@code +json} types (RFC 6839). */
    public static boolean isJson(String mediaType) {
        return mediaType.equals("application/json") || mediaType.endsWith("+json");
    }

    private static String canonicalQuery(String query) {
        if (query == null || query.isEmpty()) {
            return "";
        }
        List<String[]> pairs = new ArrayList<>();
        for (String pair : query.split("&")) {
            if (pair.isEmpty()) {
                continue;
            }
            int eq = pair.indexOf('=');
            pairs.add(new String[] {
                    decode(eq < 0 ? pair : pair.substring(0, eq)),
                    eq < 0 ? "" : decode(pair.substring(eq + 1))});
        }
        pairs.sort(Comparator.comparing(p -> p[0])); // stable: a repeated name keeps its values' order
        StringBuilder out = new StringBuilder();
        for (String[] pair : pairs) {
            // Length-prefixed, so no name or value can imitate a separator.
            out.append(pair[0].length()).append(':').append(pair[0])
                    .append(pair[1].length()).append(':').append(pair[1]);
        }
        return out.toString();
    }

    private static String decode(String text) {
        try {
            return URLDecoder.decode(text, StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            return text; // broken percent-encoding: compare it as written
        }
    }
}
