package dev.idem.client.internal;

import dev.idem.client.IdempotentRequestFailedException.Reason;
import java.io.IOException;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * The retry state of one logical request: its key, the attempts made and the deadline. The sync and
 * async paths drive the same instance, so they decide identically. Used by one flow at a time; the
 * async path hands it from stage to stage, and stage completion orders the accesses.
 */
public final class LogicalRequest {

    /** What to do after an attempt. */
    public sealed interface Decision permits Finish, Retry, GiveUp {
    }

    /** Hand the response just received to the caller. */
    public record Finish() implements Decision {
    }

    /** Wait {@code delay}, then send the same request with the same key again. */
    public record Retry(Duration delay) implements Decision {
    }

    /** The attempt failed without a response and no retry is allowed. */
    public record GiveUp(Reason reason) implements Decision {
    }

    private static final Finish FINISH = new Finish();
    private static final Duration MIN_TIMEOUT = Duration.ofMillis(1);

    private final RetryPolicy policy;
    private final HttpRequest original;
    private final String key;
    private final boolean retriesAllowed;
    /** The request's body as read once, sent on every attempt; null to send the original publisher (no body, or one attempt). */
    private final byte[] body;
    private final Instant start;
    private final Instant deadline;
    private int attempts;
    /** Attempts answered "key in use": polls of a request still running, not counted against maxAttempts. */
    private int inProgressAnswers;

    LogicalRequest(RetryPolicy policy, HttpRequest original, String key, boolean retriesAllowed, byte[] body) {
        this.policy = policy;
        this.body = body;
        this.original = original;
        this.key = key;
        this.retriesAllowed = retriesAllowed;
        this.start = policy.clock.instant();
        this.deadline = start.plus(policy.deadline);
    }

    /**
     * The next attempt: the caller's request with the key in its header, the same body bytes on
     * every attempt, and a timeout no longer than what is left of the deadline, so one hung attempt
     * cannot outlive the whole budget.
     */
    public HttpRequest nextAttempt() {
        attempts++;
        String header = policy.headerName;
        HttpRequest.Builder builder = HttpRequest.newBuilder(original, (name, value) -> !name.equalsIgnoreCase(header));
        if (key != null) {
            builder.header(header, key);
        }
        if (body != null) {
            builder.method(original.method(), RequestBody.publisher(body));
        }
        Duration remaining = Duration.between(policy.clock.instant(), deadline);
        Duration timeout = original.timeout().or(() -> Optional.ofNullable(policy.attemptTimeout))
                .map(t -> t.compareTo(remaining) < 0 ? t : remaining)
                .orElse(remaining);
        builder.timeout(timeout.compareTo(MIN_TIMEOUT) < 0 ? MIN_TIMEOUT : timeout);
        return builder.build();
    }

    /**
     * After a response: retry a retryable status while attempts and time remain, honouring
     * {@code Retry-After}; otherwise finish with this response (a retryable status included, so the
     * caller sees what the server last said).
     */
    public Decision onResponse(int status, HttpHeaders headers) {
        return onResponse(status, headers, null);
    }

    /**
     * As {@link #onResponse(int, HttpHeaders)}, where a 409 is also retryable when {@code problemType}
     * (its RFC 9457 type, null if none was read) says the key is in progress.
     */
    public Decision onResponse(int status, HttpHeaders headers, String problemType) {
        boolean keyInUse = status == 409 && problemType != null && policy.inProgressProblemTypes.contains(problemType)
                && !policy.retryStatuses.contains(status);
        boolean retryable = keyInUse || policy.retryStatuses.contains(status);
        if (!retryable || !retriesAllowed) {
            return FINISH;
        }
        Instant now = policy.clock.instant();
        if (keyInUse) {
            return whileInProgress(headers, now);
        }
        if (countedAttempts() >= policy.maxAttempts) {
            return FINISH;
        }
        Duration delay = RetryAfter.from(headers, now).orElseGet(() -> policy.backoff.delay(attempts - 1));
        return fits(now, delay) ? new Retry(delay) : FINISH;
    }

    /**
     * The request is still running on the server: look again while the deadline allows, whatever
     * {@code maxAttempts} says (these attempts ran nothing). After {@code Retry-After} when it ends
     * before the deadline, else after a back-off (bounded by its cap) if that does.
     */
    private Decision whileInProgress(HttpHeaders headers, Instant now) {
        inProgressAnswers++;
        Duration backoff = policy.backoff.delay(inProgressAnswers - 1);
        Duration delay = RetryAfter.from(headers, now).filter(retryAfter -> fits(now, retryAfter)).orElse(backoff);
        return fits(now, delay) ? new Retry(delay) : FINISH;
    }

    private int countedAttempts() {
        return attempts - inProgressAnswers;
    }

    /** After an attempt that got no response (connection refused, reset, timeout, premature EOF). */
    public Decision onFailure(IOException failure) {
        if (!retriesAllowed) {
            return new GiveUp(Reason.NOT_RETRYABLE);
        }
        if (countedAttempts() >= policy.maxAttempts) {
            return new GiveUp(Reason.ATTEMPTS_EXHAUSTED);
        }
        Instant now = policy.clock.instant();
        Duration delay = policy.backoff.delay(attempts - 1);
        return fits(now, delay) ? new Retry(delay) : new GiveUp(Reason.DEADLINE_EXCEEDED);
    }

    /**
     * A retry is worth it only if its wait ends before the deadline. One that would not is not
     * shortened: sleeping up to the deadline leaves no time for the attempt, and coming back before
     * a server's {@code Retry-After} only earns another refusal. So the client stops at once.
     */
    private boolean fits(Instant now, Duration delay) {
        return delay.compareTo(Duration.between(now, deadline)) < 0;
    }

    public String key() {
        return key;
    }

    public int attempts() {
        return attempts;
    }

    public boolean retriesAllowed() {
        return retriesAllowed;
    }

    public Duration elapsed() {
        return Duration.between(start, policy.clock.instant());
    }

    public HttpRequest original() {
        return original;
    }
}
