package dev.idem.servlet.internal;

import jakarta.servlet.http.HttpServletResponse;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.time.Duration;
import tools.jackson.core.JsonGenerator;
import tools.jackson.core.ObjectWriteContext;
import tools.jackson.core.json.JsonFactory;

/**
 * The filter's own answers, as RFC 9457 {@code application/problem+json} bodies with
 * {@code type, title, status, detail}. The {@code type} is a URN naming the problem so that clients
 * can switch on it. Details are written by the filter from fixed text and numbers: they never carry
 * the key's value or any part of the body.
 */
public enum Problem {
    KEY_MISSING("key-missing", 400, "Idempotency key missing"),
    KEY_INVALID("key-invalid", 400, "Idempotency key invalid"),
    KEY_IN_USE("key-in-use", 409, "Idempotency key in use"),
    KEY_MISMATCH("key-mismatch", 422, "Idempotency key reused for a different request"),
    REQUEST_TOO_LARGE("request-too-large", 413, "Request body too large"),
    MALFORMED_JSON("malformed-json", 400, "Malformed JSON body"),
    STORE_UNAVAILABLE("store-unavailable", 503, "Idempotency store unavailable");

    public static final String MEDIA_TYPE = "application/problem+json";
    private static final String URN_PREFIX = "urn:idem:problem:";
    /** Jackson's streaming generator alone (jackson-core): the body is written field by field. */
    private static final JsonFactory JSON = new JsonFactory();

    private final String type;
    private final int status;
    private final String title;

    Problem(String name, int status, String title) {
        this.type = URN_PREFIX + name;
        this.status = status;
        this.title = title;
    }

    public String type() {
        return type;
    }

    public int status() {
        return status;
    }

    /** Writes this problem with {@code detail} and commits the response. */
    public void send(HttpServletResponse response, String detail) throws IOException {
        send(response, detail, null);
    }

    /**
     * As {@link #send(HttpServletResponse, String)}, with a {@code Retry-After} header of
     * {@code retryAfter} in whole seconds, rounded up and at least 1 (0 would invite a busy loop).
     */
    public void send(HttpServletResponse response, String detail, Duration retryAfter) throws IOException {
        byte[] body = body(detail);
        response.setStatus(status);
        response.setContentType(MEDIA_TYPE);
        // The answer is about this attempt's key state, which changes; caches must not keep it.
        response.setHeader("Cache-Control", "no-store");
        if (retryAfter != null) {
            response.setHeader("Retry-After", Long.toString(retryAfterSeconds(retryAfter)));
        }
        response.setContentLength(body.length);
        response.getOutputStream().write(body);
        response.flushBuffer();
    }

    static long retryAfterSeconds(Duration retryAfter) {
        long millis = Math.max(0, retryAfter.toMillis());
        return Math.max(1, (millis + 999) / 1000);
    }

    private byte[] body(String detail) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(256);
        try (JsonGenerator json = JSON.createGenerator(ObjectWriteContext.empty(), out)) {
            json.writeStartObject();
            json.writeStringProperty("type", type);
            json.writeStringProperty("title", title);
            json.writeNumberProperty("status", status);
            json.writeStringProperty("detail", detail);
            json.writeEndObject();
        }
        return out.toByteArray();
    }
}
