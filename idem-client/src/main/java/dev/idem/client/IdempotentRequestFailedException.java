package dev.idem.client;

import java.net.URI;
import java.net.http.HttpRequest;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * A logical request ended without any response from the server: every attempt failed on the
 * connection (refused, reset, timed out, closed before the response) and no further attempt was
 * allowed. When the last attempt did get a response, the client returns that response instead,
 * even if it is a retryable status such as 503; this exception means "no answer at all" — with one
 * exception, {@link Reason#KEY_LIFETIME_PASSED}: the next retry would have started after the key's
 * lifetime the server advertised, whether the last attempt got a retryable response or none
 * ({@link #getCause()} is then null when it got a response).
 *
 * <p>The request may or may not have taken effect on the server: a response lost on the wire looks
 * exactly like a request that never arrived. To find out safely, send the same logical request again
 * later with the same key, {@code client.send(request, handler, e.key().orElseThrow())}: an
 * idempotent server replays the first outcome instead of executing twice — within the key's
 * lifetime; after {@link Reason#KEY_LIFETIME_PASSED}, the server no longer keeps that outcome.
 *
 * <p>The message names the method, the URI without its query, the attempts, the elapsed time, why
 * the client stopped and the type of the last failure. It never contains the idempotency key's value
 * or a body; {@link #key()} hands the key to code, not to logs.
 */
public final class IdempotentRequestFailedException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** Why no further attempt was made. */
    public enum Reason {
        /** The configured maximum number of attempts was reached. */
        ATTEMPTS_EXHAUSTED,
        /** The next wait would have ended at or past the overall deadline. */
        DEADLINE_EXCEEDED,
        /**
         * The request may not be repeated: its method is not idempotent (POST, PATCH, …) and it has
         * no idempotency key, because key generation is off and the caller supplied none.
         */
        NOT_RETRYABLE,
        /**
         * The next attempt would have started after the key's lifetime the server advertised
         * ({@value RetryRules#RETENTION_HEADER}), counted from the first attempt: past it the server no
         * longer keeps the first attempt's response, so a retry could not get it.
         */
        KEY_LIFETIME_PASSED
    }

    private final Reason reason;
    private final int attempts;
    private final Duration elapsed;
    private final String key; // kept out of the message and toString()

    private IdempotentRequestFailedException(String message, Throwable cause, Reason reason, int attempts,
                                             Duration elapsed, String key) {
        super(message, cause);
        this.reason = reason;
        this.attempts = attempts;
        this.elapsed = elapsed;
        this.key = key;
    }

    static IdempotentRequestFailedException of(HttpRequest request, Reason reason, int attempts, Duration elapsed,
                                               String key, Throwable lastCause) {
        return of(request.method(), request.uri(), reason, attempts, elapsed, key, lastCause);
    }

    static IdempotentRequestFailedException of(String method, URI uri, Reason reason, int attempts, Duration elapsed,
                                               String key, Throwable lastCause) {
        return of(method, uri, reason, attempts, elapsed, key, lastCause, null);
    }

    static IdempotentRequestFailedException of(String method, URI uri, Reason reason, int attempts, Duration elapsed,
                                               String key, Throwable lastCause, Duration lifetime) {
        Objects.requireNonNull(reason, "reason");
        Objects.requireNonNull(lastCause, "lastCause");
        String message = method + " " + withoutQuery(uri) + " failed without a response after "
                + attempts + (attempts == 1 ? " attempt" : " attempts") + " in " + elapsed.toMillis() + " ms ("
                + describe(reason, lifetime) + "); last failure: " + lastCause.getClass().getName()
                + (key == null ? "; the request had no idempotency key" : "");
        return new IdempotentRequestFailedException(message, lastCause, reason, attempts, elapsed, key);
    }

    /** Given up after a retryable response ({@code lastStatus}), as the key's lifetime would pass before the retry. */
    static IdempotentRequestFailedException afterResponse(String method, URI uri, Reason reason, int attempts, Duration elapsed,
                                                          String key, int lastStatus, Duration lifetime) {
        Objects.requireNonNull(reason, "reason");
        String message = method + " " + withoutQuery(uri) + " failed after " + attempts + (attempts == 1 ? " attempt" : " attempts")
                + " in " + elapsed.toMillis() + " ms (" + describe(reason, lifetime) + "); last response: status " + lastStatus;
        return new IdempotentRequestFailedException(message, null, reason, attempts, elapsed, key);
    }

    // A query string can carry tokens; the path is enough to tell which call failed.
    private static String withoutQuery(URI uri) {
        StringBuilder out = new StringBuilder();
        if (uri.getScheme() != null) {
            out.append(uri.getScheme()).append("://");
        }
        if (uri.getHost() != null) {
            out.append(uri.getHost());
            if (uri.getPort() >= 0) {
                out.append(':').append(uri.getPort());
            }
        }
        out.append(uri.getRawPath() == null ? "" : uri.getRawPath());
        return out.toString();
    }

    private static String describe(Reason reason, Duration lifetime) {
        switch (reason) {
            case ATTEMPTS_EXHAUSTED:
                return "attempts exhausted";
            case DEADLINE_EXCEEDED:
                return "deadline exceeded";
            case KEY_LIFETIME_PASSED:
                return "the key's lifetime" + (lifetime == null ? "" : " of " + lifetime.toSeconds() + " s")
                        + " advertised by the server would pass before the next attempt; its response is no longer kept";
            default:
                return "not retried: a non-idempotent method without an idempotency key";
        }
    }

    public Reason reason() {
        return reason;
    }

    /** Attempts made, at least 1. */
    public int attempts() {
        return attempts;
    }

    /** Time from the first attempt until the client gave up, by the client's clock. */
    public Duration elapsed() {
        return elapsed;
    }

    /**
     * The key every attempt carried, to repeat the logical request safely later; empty when the
     * request had none. Never part of {@link #getMessage()}.
     */
    public Optional<String> key() {
        return Optional.ofNullable(key);
    }
}
