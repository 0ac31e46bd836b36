package dev.idem.client;

import java.net.http.HttpResponse;
import java.util.Objects;
import java.util.Optional;

/**
 * The outcome of one logical request: the final {@link HttpResponse} and how it was reached.
 *
 * <p>The final response is the first one whose status is not retried, or — when attempts or the
 * deadline ran out, or the request could not be repeated — the last one received, which may then be
 * a retryable status such as 503. Check {@link #statusCode()} as usual.
 *
 * <p>{@link #toString()} shows the status, attempts and replay flag, not the key or the body.
 *
 * @param <T> the body type of the {@link HttpResponse.BodyHandler} used
 */
public final class IdempotentResponse<T> {
    /** The header an idempotent server sets on a stored response it replays (Stripe, idem's servlet filter). */
    public static final String REPLAYED_HEADER = "Idempotent-Replayed";

    private final HttpResponse<T> response;
    private final int attempts;
    private final String key;

    IdempotentResponse(HttpResponse<T> response, int attempts, String key) {
        this.response = Objects.requireNonNull(response, "response");
        this.attempts = attempts;
        this.key = key;
    }

    /** The final response, as {@link java.net.http.HttpClient} returned it. */
    public HttpResponse<T> response() {
        return response;
    }

    /** Shortcut for {@code response().statusCode()}. */
    public int statusCode() {
        return response.statusCode();
    }

    /** Shortcut for {@code response().body()}. */
    public T body() {
        return response.body();
    }

    /** Attempts made for this logical request, at least 1. */
    public int attempts() {
        return attempts;
    }

    /**
     * Whether the server answered with a stored response instead of executing again
     * ({@code Idempotent-Replayed: true}). After a lost response this is how a caller learns the
     * first attempt did take effect.
     */
    public boolean replayed() {
        return response.headers().firstValue(REPLAYED_HEADER)
                .map(String::trim)
                .map(v -> v.equalsIgnoreCase("true") || v.equals("?1")) // ?1 is the Structured Field boolean
                .orElse(false);
    }

    /**
     * The idempotency key every attempt carried; empty when the request had none (an idempotent
     * method such as GET, for which the client generates no key, or key generation turned off).
     */
    public Optional<String> key() {
        return Optional.ofNullable(key);
    }

    @Override
    public String toString() {
        return "IdempotentResponse[" + response.request().method() + " status=" + response.statusCode()
                + ", attempts=" + attempts + ", replayed=" + replayed() + ", key=" + (key == null ? "none" : "present")
                + "]";
    }
}
