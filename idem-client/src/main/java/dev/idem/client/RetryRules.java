package dev.idem.client;

import dev.idem.client.IdempotentRequestFailedException.Reason;
import dev.idem.client.internal.Backoff;
import dev.idem.client.internal.Keys;
import dev.idem.client.internal.MonotonicClock;
import dev.idem.client.internal.ProblemPeek;
import dev.idem.client.internal.RetryAfter;
import dev.idem.client.internal.RetryPolicy;
import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.random.RandomGenerator;

/**
 * The one place that decides whether an attempt of a logical request is retried with the same
 * idempotency key, after how long, and when to stop. {@link IdempotentHttpClient} drives it over
 * {@code java.net.http}; any other HTTP client (idem-webflux's WebClient filter) drives the same
 * rules, so both retry identically. JDK only, independent of any HTTP library: the caller hands in
 * the status, the {@code Retry-After} value and, for a 409, the RFC 9457 problem type it read.
 *
 * <p>The rules (see {@link IdempotentHttpClient} for the why): a status in {@link Builder#retryStatuses}
 * (default 408, 425, 429, 500–599) and an attempt without any response are retried while
 * {@link Builder#maxAttempts maxAttempts} and the {@link Builder#deadline deadline} allow; a 409 whose
 * problem type is one of {@link Builder#inProgressProblemTypes} (default
 * {@code urn:idem:problem:key-in-use}) is polled until the deadline and does not count against
 * {@code maxAttempts}; every other answer (2xx, 3xx, 400, 404, 422 {@code key-mismatch}, any other
 * 409, …) is final. The wait is the server's {@code Retry-After}, else exponential back-off with full
 * jitter; a wait that would end at or past the deadline is not made.
 *
 * <p><b>The key's lifetime.</b> A server that advertises how long it keeps a key's response
 * ({@value #RETENTION_HEADER}{@code : <seconds>}, idem's filters do on every answer) bounds the
 * retries too: once the time since the first attempt plus the next wait would reach the shortest
 * lifetime advertised so far, the key is not retried but given up with
 * {@link Reason#KEY_LIFETIME_PASSED}. A retry past it could no longer get the first attempt's response
 * (the server may even run the request again); the lifetime counts from the completion, which is
 * after the first attempt began, so every retry made is within it.
 *
 * <p>Instances are immutable and thread-safe; {@link #start(boolean)} opens the state of one logical
 * request.
 */
public final class RetryRules {
    /** 408, 425, 429 and every 5xx. */
    private static final Set<Integer> DEFAULT_RETRY_STATUSES = defaultRetryStatuses();
    /** idem's filter's answer to a key in progress. */
    private static final Set<String> DEFAULT_IN_PROGRESS_PROBLEM_TYPES = Set.of("urn:idem:problem:key-in-use");
    /**
     * Methods RFC 9110 §9.2.2 defines as idempotent: repeating them is safe without a key; every
     * other method (POST, PATCH, and any extension method) needs one.
     */
    private static final Set<String> IDEMPOTENT_METHODS = Set.of("GET", "HEAD", "OPTIONS", "PUT", "DELETE", "TRACE");
    private static final Finish FINISH = new Finish();
    /** The response header in which a server advertises how many seconds it keeps a key's response. */
    public static final String RETENTION_HEADER = "Idempotency-Key-Retention";

    private final int maxAttempts;
    private final Duration deadline;
    private final Backoff backoff;
    private final Set<Integer> retryStatuses;
    private final Set<String> inProgressProblemTypes;
    private final Clock clock;

    private RetryRules(Builder b) {
        this.maxAttempts = b.maxAttempts;
        this.deadline = b.deadline;
        this.backoff = new Backoff(b.backoffBase, b.backoffCap, b.random);
        this.retryStatuses = b.retryStatuses;
        this.inProgressProblemTypes = b.inProgressProblemTypes;
        this.clock = b.clock == null ? new MonotonicClock() : b.clock;
    }

    /** A builder with the defaults of {@link IdempotentHttpClient}. */
    public static Builder builder() {
        return new Builder();
    }

    /** What to do after an attempt. */
    public sealed interface Decision permits Finish, Retry, GiveUp {
    }

    /** Final: hand the response just received to the caller (it may be a retryable status when the budget ran out). */
    public record Finish() implements Decision {
    }

    /** Wait {@code delay}, then send the same request with the same key again. */
    public record Retry(Duration delay) implements Decision {
    }

    /**
     * No further attempt is allowed, for {@code reason}, and the caller gets
     * {@link Attempts#failure its exception}: after an attempt without a response, or after a
     * retryable response once the key's advertised lifetime would pass before the retry.
     */
    public record GiveUp(Reason reason) implements Decision {
    }

    /**
     * Opens the retry state of one logical request; its deadline starts now. With
     * {@code retriesAllowed} false (a method that is not idempotent, without a key) nothing is
     * ever retried.
     */
    public Attempts start(boolean retriesAllowed) {
        return new Attempts(retriesAllowed);
    }

    /** Whether a 409's problem type must be read to decide: 409 is not retried as a status and some types mark a key in progress. */
    public boolean readsConflictProblemTypes() {
        return !retryStatuses.contains(409) && !inProgressProblemTypes.isEmpty();
    }

    /** Whether {@code method} (case-sensitive, RFC 9110 §9.1) is idempotent, so safe to repeat without a key. */
    public static boolean isIdempotentMethod(String method) {
        return IDEMPOTENT_METHODS.contains(method);
    }

    /** A fresh UUIDv4 key from {@link java.util.UUID#randomUUID()} (a {@link java.security.SecureRandom}). */
    public static String newKey() {
        return Keys.generate();
    }

    /**
     * The key a caller put in a request's idempotency header ({@code values}: all values of
     * {@code headerName}), checked: 1–255 visible ASCII characters, once; {@code null} when there is none.
     *
     * @throws IllegalArgumentException the header is repeated or the key malformed, naming the rule, never the value
     */
    public static String suppliedKey(List<String> values, String headerName) {
        return Keys.fromValues(values, headerName);
    }

    /**
     * Returns {@code name} if it is an HTTP token usable as the key header.
     *
     * @throws IllegalArgumentException naming the bad character
     */
    public static String checkHeaderName(String name) {
        return Keys.checkHeaderName(name);
    }

    /**
     * The RFC 9457 {@code type} member of an {@code application/problem+json} body (a 409's, to tell
     * a key in progress from another conflict), or {@code null}.
     */
    public static String problemType(byte[] problemJson) {
        return ProblemPeek.parseType(problemJson);
    }

    public int maxAttempts() {
        return maxAttempts;
    }

    public Duration deadline() {
        return deadline;
    }

    public Clock clock() {
        return clock;
    }

    @Override
    public String toString() {
        return "maxAttempts=" + maxAttempts + ", deadline=" + deadline + ", backoff=[" + backoff + "], retryStatuses="
                + RetryPolicy.ranges(retryStatuses) + ", inProgressProblemTypes=" + new TreeSet<>(inProgressProblemTypes)
                + ", clock=" + clock;
    }

    /**
     * The attempts of one logical request: call {@link #attemptStarted()} before each, then
     * {@link #onResponse} or {@link #onNoResponse()} after it. Used by one flow at a time (a
     * reactive chain or an async stage hands it on; their ordering orders the accesses).
     */
    public final class Attempts {
        private final boolean retriesAllowed;
        private final Instant start;
        private final Instant end;
        private int attempts;
        /** Attempts answered "key in use": polls of a request still running, not counted against maxAttempts. */
        private int inProgressAnswers;
        /** The shortest key lifetime a response advertised, or null before any did. */
        private Duration lifetime;
        /** The status of the last response, or -1 when the last attempt got none. */
        private int lastStatus = -1;

        private Attempts(boolean retriesAllowed) {
            this.retriesAllowed = retriesAllowed;
            this.start = clock.instant();
            this.end = start.plus(deadline);
        }

        /** Counts one more attempt. */
        public void attemptStarted() {
            attempts++;
        }

        /**
         * After a response with {@code status}, its {@code Retry-After} value ({@code null} if none)
         * and, for a 409, its RFC 9457 problem type ({@code null} if none was read): {@link Retry}
         * or {@link Finish}.
         */
        public Decision onResponse(int status, String retryAfter, String problemType) {
            return onResponse(status, retryAfter, problemType, null);
        }

        /**
         * As {@link #onResponse(int, String, String)}, with the response's {@value #RETENTION_HEADER}
         * value ({@code null} if none; one that is not a non-negative integer is ignored): a retry that
         * would start past the key's lifetime is a {@link GiveUp} with {@link Reason#KEY_LIFETIME_PASSED}.
         */
        public Decision onResponse(int status, String retryAfter, String problemType, String keyRetention) {
            lastStatus = status;
            advertised(keyRetention);
            return withinLifetime(decide(status, retryAfter, problemType));
        }

        private Decision decide(int status, String retryAfter, String problemType) {
            boolean keyInUse = status == 409 && problemType != null && inProgressProblemTypes.contains(problemType)
                    && !retryStatuses.contains(status);
            if (!(keyInUse || retryStatuses.contains(status)) || !retriesAllowed) {
                return FINISH;
            }
            Instant now = clock.instant();
            Duration serverWait = retryAfter == null ? null : RetryAfter.parse(retryAfter, now).orElse(null);
            if (keyInUse) {
                return whileInProgress(serverWait, now);
            }
            if (countedAttempts() >= maxAttempts) {
                return FINISH;
            }
            Duration delay = serverWait != null ? serverWait : backoff.delay(attempts - 1);
            return fits(now, delay) ? new Retry(delay) : FINISH;
        }

        /**
         * The request is still running on the server: look again while the deadline allows, whatever
         * {@code maxAttempts} says (these attempts ran nothing). After {@code Retry-After} when it ends
         * before the deadline, else after a back-off (bounded by its cap) if that does.
         */
        private Decision whileInProgress(Duration serverWait, Instant now) {
            inProgressAnswers++;
            Duration delay = serverWait != null && fits(now, serverWait) ? serverWait : backoff.delay(inProgressAnswers - 1);
            return fits(now, delay) ? new Retry(delay) : FINISH;
        }

        /** After an attempt that got no response (connection refused, reset, timeout, closed before the response). */
        public Decision onNoResponse() {
            lastStatus = -1;
            return withinLifetime(decideWithoutResponse());
        }

        private void advertised(String keyRetention) {
            if (keyRetention == null) {
                return;
            }
            try {
                long seconds = Long.parseLong(keyRetention.trim());
                if (seconds >= 0 && (lifetime == null || seconds < lifetime.toSeconds())) {
                    lifetime = Duration.ofSeconds(seconds);
                }
            } catch (NumberFormatException e) {
                // Not a lifetime: the server said nothing usable.
            }
        }

        /** {@code decision}, unless it is a retry that would start at or past the key's advertised lifetime. */
        private Decision withinLifetime(Decision decision) {
            if (lifetime == null || !(decision instanceof Retry retry)) {
                return decision;
            }
            Duration startsAt = Duration.between(start, clock.instant()).plus(retry.delay());
            return startsAt.compareTo(lifetime) < 0 ? decision : new GiveUp(Reason.KEY_LIFETIME_PASSED);
        }

        private Decision decideWithoutResponse() {
            if (!retriesAllowed) {
                return new GiveUp(Reason.NOT_RETRYABLE);
            }
            if (countedAttempts() >= maxAttempts) {
                return new GiveUp(Reason.ATTEMPTS_EXHAUSTED);
            }
            Instant now = clock.instant();
            Duration delay = backoff.delay(attempts - 1);
            return fits(now, delay) ? new Retry(delay) : new GiveUp(Reason.DEADLINE_EXCEEDED);
        }

        private int countedAttempts() {
            return attempts - inProgressAnswers;
        }

        /**
         * A retry is worth it only if its wait ends before the deadline. One that would not is not
         * shortened: sleeping up to the deadline leaves no time for the attempt, and coming back before
         * a server's {@code Retry-After} only earns another refusal. So the caller stops at once.
         */
        private boolean fits(Instant now, Duration delay) {
            return delay.compareTo(Duration.between(now, end)) < 0;
        }

        /**
         * The exception for a {@link GiveUp}, with the reason, the attempts, the elapsed time and
         * {@code key} (kept out of the message): "no response at all", {@code lastFailure} its cause;
         * or, when the last attempt got a response ({@code lastFailure} null), that response's status.
         */
        public IdempotentRequestFailedException failure(GiveUp giveUp, String method, URI uri, String key,
                                                        Throwable lastFailure) {
            if (lastFailure == null) {
                return IdempotentRequestFailedException.afterResponse(method, uri, giveUp.reason(), attempts, elapsed(), key,
                        lastStatus, lifetime);
            }
            return IdempotentRequestFailedException.of(method, uri, giveUp.reason(), attempts, elapsed(), key, lastFailure,
                    lifetime);
        }

        /** Attempts made so far. */
        public int attempts() {
            return attempts;
        }

        public boolean retriesAllowed() {
            return retriesAllowed;
        }

        /** Time since {@link RetryRules#start}, by the rules' clock. */
        public Duration elapsed() {
            return Duration.between(start, clock.instant());
        }

        /** What is left of the deadline (negative once past it): the most an attempt may take. */
        public Duration remaining() {
            return Duration.between(clock.instant(), end);
        }
    }

    private static Set<Integer> defaultRetryStatuses() {
        Set<Integer> statuses = new LinkedHashSet<>(List.of(408, 425, 429));
        for (int status = 500; status <= 599; status++) {
            statuses.add(status);
        }
        return Set.copyOf(statuses);
    }

    /**
     * Validates each setting as it is set, naming the bad value; {@link #build()} returns immutable
     * rules, and later changes to the builder do not affect them.
     */
    public static final class Builder {
        private int maxAttempts = 5;
        private Duration deadline = Duration.ofSeconds(30);
        private Duration backoffBase = Duration.ofMillis(100);
        private Duration backoffCap = Duration.ofSeconds(5);
        private RandomGenerator random;
        private Clock clock;
        private Set<Integer> retryStatuses = DEFAULT_RETRY_STATUSES;
        private Set<String> inProgressProblemTypes = DEFAULT_IN_PROGRESS_PROBLEM_TYPES;

        private Builder() {
        }

        /** Attempts per logical request, the first one included; at least 1 (no retry). Default 5. */
        public Builder maxAttempts(int maxAttempts) {
            if (maxAttempts < 1) {
                throw new IllegalArgumentException("maxAttempts must be at least 1, was " + maxAttempts);
            }
            this.maxAttempts = maxAttempts;
            return this;
        }

        /** The time budget of one logical request, from its start to the last attempt; no wait ends past it. Default 30 s. */
        public Builder deadline(Duration deadline) {
            this.deadline = positive("deadline", deadline);
            return this;
        }

        /**
         * Exponential backoff with full jitter: the (n+1)-th retry waits a random time in
         * [0, min(cap, base·2^n)]. Default base 100 ms, cap 5 s. {@code Retry-After} overrides it.
         */
        public Builder backoff(Duration base, Duration cap) {
            positive("backoff base", base);
            positive("backoff cap", cap);
            if (cap.compareTo(base) < 0) {
                throw new IllegalArgumentException("backoff cap must not be below its base, was cap " + cap + " < base " + base);
            }
            this.backoffBase = base;
            this.backoffCap = cap;
            return this;
        }

        /** The source of jitter; used under its own lock, so it need not be thread-safe. Default {@link java.util.concurrent.ThreadLocalRandom}. */
        public Builder random(RandomGenerator random) {
            this.random = Objects.requireNonNull(random, "random is null");
            return this;
        }

        /**
         * The clock that measures the deadline and turns a {@code Retry-After} HTTP-date into a delay.
         * Default: wall time read once, advanced by {@link System#nanoTime()}, so clock steps do not
         * move deadlines.
         */
        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock is null");
            return this;
        }

        /**
         * The response statuses that are retried, replacing the default 408, 425, 429 and 500–599. Each
         * must be in 400–599: a success or a redirect is never retried. With 409 in the list, every
         * 409 is retried, whatever its body.
         */
        public Builder retryStatuses(int... statuses) {
            Objects.requireNonNull(statuses, "statuses is null");
            Set<Integer> set = new LinkedHashSet<>();
            for (int status : statuses) {
                if (status < 400 || status > 599) {
                    throw new IllegalArgumentException("retryStatuses must be in 400-599, was " + status);
                }
                set.add(status);
            }
            this.retryStatuses = Set.copyOf(set);
            return this;
        }

        /**
         * The RFC 9457 problem types of a 409 that mean "this key is in progress elsewhere, retry",
         * replacing the default {@code urn:idem:problem:key-in-use}; every other 409 is final.
         */
        public Builder inProgressProblemTypes(String... types) {
            Objects.requireNonNull(types, "types is null");
            Set<String> set = new LinkedHashSet<>();
            for (String type : types) {
                if (type == null || type.isBlank()) {
                    throw new IllegalArgumentException("an in-progress problem type must not be blank, was "
                            + (type == null ? "null" : "'" + type + "'"));
                }
                set.add(type);
            }
            this.inProgressProblemTypes = Set.copyOf(set);
            return this;
        }

        public RetryRules build() {
            return new RetryRules(this);
        }

        static Duration positive(String name, Duration value) {
            Objects.requireNonNull(value, () -> name + " is null");
            if (value.isNegative() || value.isZero()) {
                throw new IllegalArgumentException(name + " must be positive, was " + value);
            }
            return value;
        }
    }
}
