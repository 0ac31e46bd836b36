package dev.idem.http;

import java.io.ByteArrayOutputStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import tools.jackson.core.JsonGenerator;
import tools.jackson.core.ObjectWriteContext;
import tools.jackson.core.json.JsonFactory;

/**
 * The idempotency layer's own answers, as RFC 9457 {@code application/problem+json} bodies with
 * {@code type, title, status, detail}. The {@code type} is a URN naming the problem so that clients
 * can switch on it. Details are written from fixed text and numbers: they never carry the key's value
 * or any part of the body. The table is in the project's {@code docs/http.md}.
 */
public enum Problem {
    KEY_MISSING("key-missing", 400, "Idempotency key missing"),
    KEY_INVALID("key-invalid", 400, "Idempotency key invalid"),
    KEY_IN_USE("key-in-use", 409, "Idempotency key in use"),
    KEY_MISMATCH("key-mismatch", 422, "Idempotency key reused for a different request"),
    KEY_EXPIRED("key-expired", 410, "Idempotency key's response expired"),
    REQUEST_TOO_LARGE("request-too-large", 413, "Request body too large"),
    MALFORMED_JSON("malformed-json", 400, "Malformed JSON body"),
    REQUEST_NOT_STORABLE("request-not-storable", 400, "Request cannot be stored for completion"),
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

    public String title() {
        return title;
    }

    /** This problem with {@code detail}, as an answer to send. */
    public HttpAnswer answer(String detail) {
        return answer(detail, null);
    }

    /**
     * As {@link #answer(String)}, with a {@code Retry-After} header of {@code retryAfter} in whole
     * seconds, rounded up and at least 1 (0 would invite a busy loop); none when it is null.
     */
    public HttpAnswer answer(String detail, Duration retryAfter) {
        List<HttpAnswer.Header> headers = new ArrayList<>(3);
        headers.add(HttpAnswer.Header.set("Content-Type", MEDIA_TYPE));
        // The answer is about this attempt's key state, which changes; caches must not keep it.
        headers.add(HttpAnswer.Header.set("Cache-Control", "no-store"));
        if (retryAfter != null) {
            headers.add(HttpAnswer.Header.set("Retry-After", Long.toString(retryAfterSeconds(retryAfter))));
        }
        return new HttpAnswer(status, headers, body(detail));
    }

    /** {@code retryAfter} as a {@code Retry-After} value: whole seconds, rounded up, at least 1. */
    public static long retryAfterSeconds(Duration retryAfter) {
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
