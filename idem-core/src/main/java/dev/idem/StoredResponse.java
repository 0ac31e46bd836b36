package dev.idem;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * What an operation answered and a replay returns byte for byte: a status, ordered headers and a
 * binary body. Immutable; the body is copied in and out.
 *
 * <p>Header names must be HTTP tokens and values must not contain CR, LF or NUL, so a stored
 * response can never smuggle a header on replay. Which headers are worth storing (not
 * {@code Set-Cookie}, hop-by-hop or {@code Date}) is the HTTP layer's decision, and so is making a
 * handler's headers storable before they get here: a refusal here after the effect would release the
 * key, so the servlet filter normalises names and values as the container sends them (and leaves out,
 * with a marker, whatever still could not be stored).
 */
public final class StoredResponse {
    /**
     * Marks a stored response whose body was over the engine's cap ({@link Idem#maxResponseBytes()})
     * and left out: status and headers are the operation's, the body is empty.
     */
    public static final String BODY_OMITTED_HEADER = "Idempotent-Body-Omitted";

    private final int status;
    private final Map<String, List<String>> headers;
    private final byte[] body;

    private StoredResponse(int status, Map<String, List<String>> headers, byte[] body) {
        this.status = status;
        this.headers = headers;
        this.body = body;
    }

    /**
     * @param status  100–599
     * @param headers name to values, in the order to replay them; may be empty
     * @param body    may be empty, never null
     */
    public static StoredResponse of(int status, Map<String, List<String>> headers, byte[] body) {
        if (status < 100 || status > 599) {
            throw new IllegalArgumentException("response status must be 100-599, was " + status);
        }
        Objects.requireNonNull(headers, "response headers are null (use Map.of())");
        Objects.requireNonNull(body, "response body is null (use an empty array)");
        Map<String, List<String>> copy = new LinkedHashMap<>();
        headers.forEach((name, values) -> {
            checkHeaderName(name);
            Objects.requireNonNull(values, () -> "values of response header '" + name + "' are null");
            List<String> valueCopy = new ArrayList<>(values.size());
            for (String value : values) {
                checkHeaderValue(name, value);
                valueCopy.add(value);
            }
            copy.put(name, Collections.unmodifiableList(valueCopy));
        });
        return new StoredResponse(status, Collections.unmodifiableMap(copy), body.clone());
    }

    /** A response with a status and body and no headers. */
    public static StoredResponse of(int status, byte[] body) {
        return of(status, Map.of(), body);
    }

    private static void checkHeaderName(String name) {
        if (name == null || name.isEmpty()) {
            throw new IllegalArgumentException("response header name is missing or empty");
        }
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            boolean token = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
                    || "!#$%&'*+-.^_`|~".indexOf(c) >= 0;
            if (!token) {
                throw new IllegalArgumentException("response header name has a character that is not an HTTP token character at position " + i);
            }
        }
    }

    private static void checkHeaderValue(String name, String value) {
        if (value == null) {
            throw new IllegalArgumentException("a value of response header '" + name + "' is null");
        }
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c == '\r' || c == '\n' || c == 0) {
                throw new IllegalArgumentException("a value of response header '" + name + "' contains CR, LF or NUL");
            }
        }
    }

    /** This response's status and headers with an empty body and {@link #BODY_OMITTED_HEADER}{@code : true}. */
    StoredResponse withBodyOmitted() {
        Map<String, List<String>> marked = new LinkedHashMap<>(headers);
        marked.keySet().removeIf(BODY_OMITTED_HEADER::equalsIgnoreCase);
        marked.put(BODY_OMITTED_HEADER, List.of("true"));
        return new StoredResponse(status, Collections.unmodifiableMap(marked), new byte[0]);
    }

    public int status() {
        return status;
    }

    /** Unmodifiable, in insertion order. */
    public Map<String, List<String>> headers() {
        return headers;
    }

    /** A copy of the body. */
    public byte[] body() {
        return body.clone();
    }

    public int bodyLength() {
        return body.length;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof StoredResponse other && status == other.status
                && headers.equals(other.headers) && Arrays.equals(body, other.body);
    }

    @Override
    public int hashCode() {
        return 31 * (31 * status + headers.hashCode()) + Arrays.hashCode(body);
    }

    /** Shows the status, header names and body length; never the body. */
    @Override
    public String toString() {
        return "StoredResponse[status=" + status + ", headers=" + headers.keySet() + ", body=" + body.length + " bytes]";
    }
}
