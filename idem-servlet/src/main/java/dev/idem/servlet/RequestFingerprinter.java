package dev.idem.servlet;

import dev.idem.Fingerprint;
import dev.idem.IdemException;
import dev.idem.servlet.internal.BufferedRequest;
import dev.idem.servlet.internal.CanonicalJson;
import dev.idem.servlet.internal.RequestNames;
import jakarta.servlet.http.HttpServletRequest;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * The identity of a request, as a {@link Fingerprint}: a retry of the same request must produce the
 * same one, and the same key with another fingerprint is answered 422.
 *
 * <p>The default is SHA-256 (through {@link Fingerprint#builder()}) over
 * <ol>
 * <li>the method;</li>
 * <li>the path within the application (without the context path) — the actual path, not a route
 *     template, so one key sent to {@code /orders/1} and {@code /orders/2} is a mismatch;</li>
 * <li>the query string, its parameters decoded and sorted by name, so their order does not matter
 *     (the values of one repeated name keep their order: they may be a list);</li>
 * <li>the media type of {@code Content-Type}, lower-cased, without parameters;</li>
 * <li>the body: for {@code application/json} and {@code *+json}, canonical JSON (object members
 *     sorted by name at every depth, insignificant whitespace dropped, numbers as written); any
 *     other body byte for byte.</li>
 * </ol>
 * A JSON body that is not well-formed raises {@link MalformedBodyException}, which the filter
 * answers with 400 ({@code urn:idem:problem:malformed-json}) before anything runs or is stored.
 *
 * <p>Replaceable: subclass and override {@link #fingerprint} or {@link #canonicalBody}, and pass the
 * instance to {@link IdempotencyFilter.Builder#fingerprinter}. Instances must be thread-safe.
 * Changing the fingerprint of a deployed service turns in-flight retries into mismatches until their
 * records expire.
 */
public class RequestFingerprinter {

    /** The default fingerprinter. */
    public RequestFingerprinter() {
    }

    /**
     * The fingerprint of {@code request} with its buffered {@code body}.
     *
     * @throws MalformedBodyException if the body does not parse as its content type requires
     */
    public Fingerprint fingerprint(HttpServletRequest request, byte[] body) {
        String mediaType = BufferedRequest.mediaType(request.getContentType());
        return Fingerprint.builder()
                .part("method", request.getMethod())
                .part("path", RequestNames.pathWithinApplication(request))
                .part("query", canonicalQuery(request.getQueryString()))
                .part("content-type", mediaType)
                .part("body", canonicalBody(mediaType, body))
                .build();
    }

    /**
     * The bytes of {@code body} that identify it: canonical JSON for JSON media types, else the body
     * itself. An empty (or, for JSON, whitespace-only) body identifies as empty.
     *
     * @param mediaType lower-case, without parameters; "" when the request has no Content-Type
     * @throws MalformedBodyException if a JSON body is not well-formed
     */
    protected byte[] canonicalBody(String mediaType, byte[] body) {
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
    protected static boolean isJson(String mediaType) {
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

    /**
     * A body that does not parse as its content type requires. The message says where parsing
     * failed, never what the body contains; the filter uses it as the problem's {@code detail}.
     */
    public static final class MalformedBodyException extends IdemException {
        private static final long serialVersionUID = 1L;

        public MalformedBodyException(String message) {
            super(message, true);
        }
    }
}
