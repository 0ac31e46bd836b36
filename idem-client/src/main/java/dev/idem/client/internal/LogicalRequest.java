package dev.idem.client.internal;

import dev.idem.client.IdempotentRequestFailedException;
import dev.idem.client.RetryRules;
import dev.idem.client.RetryRules.GiveUp;
import dev.idem.client.RetryRules.Decision;
import java.io.IOException;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.time.Duration;
import java.util.Optional;

/**
 * One logical request over java.net.http: its key, its body read once, and its
 * {@link RetryRules.Attempts}, which make every retry decision. The sync and async paths drive the
 * same instance, so they decide identically. Used by one flow at a time; the async path hands it
 * from stage to stage, and stage completion orders the accesses.
 */
public final class LogicalRequest {
    private static final Duration MIN_TIMEOUT = Duration.ofMillis(1);

    private final RetryPolicy policy;
    private final HttpRequest original;
    private final String key;
    private final RetryRules.Attempts attempts;
    /** The request's body as read once, sent on every attempt; null to send the original publisher (no body, or one attempt). */
    private final byte[] body;

    LogicalRequest(RetryPolicy policy, HttpRequest original, String key, RetryRules.Attempts attempts, byte[] body) {
        this.policy = policy;
        this.original = original;
        this.key = key;
        this.attempts = attempts;
        this.body = body;
    }

    /**
     * The next attempt: the caller's request with the key in its header, the same body bytes on
     * every attempt, and a timeout no longer than what is left of the deadline, so one hung attempt
     * cannot outlive the whole budget.
     */
    public HttpRequest nextAttempt() {
        attempts.attemptStarted();
        String header = policy.headerName;
        HttpRequest.Builder builder = HttpRequest.newBuilder(original, (name, value) -> !name.equalsIgnoreCase(header));
        if (key != null) {
            builder.header(header, key);
        }
        if (body != null) {
            builder.method(original.method(), RequestBody.publisher(body));
        }
        Duration remaining = attempts.remaining();
        Duration timeout = original.timeout().or(() -> Optional.ofNullable(policy.attemptTimeout))
                .map(t -> t.compareTo(remaining) < 0 ? t : remaining)
                .orElse(remaining);
        builder.timeout(timeout.compareTo(MIN_TIMEOUT) < 0 ? MIN_TIMEOUT : timeout);
        return builder.build();
    }

    /** After a response; see {@link RetryRules.Attempts#onResponse}. */
    public Decision onResponse(int status, HttpHeaders headers, String problemType) {
        return attempts.onResponse(status, headers.firstValue(RetryAfter.HEADER).orElse(null), problemType,
                headers.firstValue(RetryRules.RETENTION_HEADER).orElse(null));
    }

    /** After an attempt that got no response (connection refused, reset, timeout, premature EOF). */
    public Decision onFailure(IOException failure) {
        return attempts.onNoResponse();
    }

    /** The exception for {@code giveUp} (see {@link RetryRules.Attempts#failure}). */
    public IdempotentRequestFailedException failure(GiveUp giveUp, Throwable lastFailure) {
        return attempts.failure(giveUp, original.method(), original.uri(), key, lastFailure);
    }

    public String key() {
        return key;
    }

    public int attempts() {
        return attempts.attempts();
    }

    public boolean retriesAllowed() {
        return attempts.retriesAllowed();
    }

    public Duration elapsed() {
        return attempts.elapsed();
    }

    public HttpRequest original() {
        return original;
    }
}
