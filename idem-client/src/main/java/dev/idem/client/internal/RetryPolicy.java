package dev.idem.client.internal;

import java.net.http.HttpRequest;
import java.time.Clock;
import java.time.Duration;
import java.util.Objects;
import java.util.Set;

/** The immutable settings a builder produced; starts one {@link LogicalRequest} per call. */
public final class RetryPolicy {
    /**
     * Methods RFC 9110 §9.2.2 defines as idempotent. Repeating them is safe without a key; every
     * other method (POST, PATCH, and any extension method) needs one.
     */
    private static final Set<String> IDEMPOTENT_METHODS = Set.of("GET", "HEAD", "OPTIONS", "PUT", "DELETE", "TRACE");

    final String headerName;
    final int maxAttempts;
    final Duration deadline;
    final Duration attemptTimeout; // null: none beyond the request's own and the deadline
    final Backoff backoff;
    final Set<Integer> retryStatuses;
    final Set<String> inProgressProblemTypes;
    final boolean generateKeys;
    final Clock clock;
    final int maxRequestBodyBytes;

    public RetryPolicy(String headerName, int maxAttempts, Duration deadline, Duration attemptTimeout,
                       Backoff backoff, Set<Integer> retryStatuses, Set<String> inProgressProblemTypes,
                       boolean generateKeys, Clock clock, int maxRequestBodyBytes) {
        this.headerName = headerName;
        this.maxAttempts = maxAttempts;
        this.deadline = deadline;
        this.attemptTimeout = attemptTimeout;
        this.backoff = backoff;
        this.retryStatuses = Set.copyOf(retryStatuses);
        this.inProgressProblemTypes = Set.copyOf(inProgressProblemTypes);
        this.generateKeys = generateKeys;
        this.clock = clock;
        this.maxRequestBodyBytes = maxRequestBodyBytes;
    }

    public static boolean isIdempotentMethod(String method) {
        // Methods are case-sensitive (RFC 9110 §9.1): "post" is not POST, and not known to be safe either.
        return IDEMPOTENT_METHODS.contains(method);
    }

    /**
     * Resolves the key of one logical request: the caller's ({@code explicitKey} or the request's
     * header, which must agree when both are given), else a fresh UUIDv4 for a method that is not
     * idempotent when key generation is on, else none.
     *
     * <p>A request that may be retried has its body read here, once (see {@link LogicalRequest#nextAttempt}).
     *
     * @throws IllegalArgumentException a supplied key is malformed, two supplied keys differ, or the
     *                                  body is over {@code maxRequestBodyBytes}
     * @throws InterruptedException     while the body was read
     */
    public LogicalRequest start(HttpRequest request, String explicitKey) throws InterruptedException {
        Objects.requireNonNull(request, "request is null");
        String headerKey = Keys.fromHeaders(request, headerName);
        String key;
        if (explicitKey != null) {
            Keys.check(explicitKey);
            if (headerKey != null && !headerKey.equals(explicitKey)) {
                throw new IllegalArgumentException("the request's " + headerName
                        + " header and the key argument hold different keys; pass one key per logical request");
            }
            key = explicitKey;
        } else if (headerKey != null) {
            key = headerKey;
        } else if (generateKeys && !isIdempotentMethod(request.method())) {
            key = Keys.generate();
        } else {
            key = null;
        }
        // Without a key, a repeated POST may run twice on the server: send such a request once only.
        boolean retriesAllowed = key != null || isIdempotentMethod(request.method());
        byte[] body = null;
        if (retriesAllowed && request.bodyPublisher().filter(publisher -> publisher.contentLength() != 0).isPresent()) {
            body = RequestBody.read(request.bodyPublisher().get(), maxRequestBodyBytes, deadline);
        }
        return new LogicalRequest(this, request, key, retriesAllowed, body);
    }

    /**
     * Whether a 409's problem type must be read to decide: only when 409 is not retried as a status
     * and some problem types mark a key in progress.
     */
    public boolean readsConflictProblemTypes() {
        return !retryStatuses.contains(409) && !inProgressProblemTypes.isEmpty();
    }

    public String headerName() {
        return headerName;
    }

    public Clock clock() {
        return clock;
    }

    @Override
    public String toString() {
        return "headerName=" + headerName + ", maxAttempts=" + maxAttempts + ", deadline=" + deadline
                + ", attemptTimeout=" + (attemptTimeout == null ? "none" : attemptTimeout.toString())
                + ", backoff=[" + backoff + "], retryStatuses=" + ranges(retryStatuses)
                + ", inProgressProblemTypes=" + new java.util.TreeSet<>(inProgressProblemTypes)
                + ", generateKeys=" + generateKeys + ", maxRequestBodyBytes=" + maxRequestBodyBytes + ", clock=" + clock;
    }

    /** The statuses in order, runs of three or more as {@code first-last}: {@code [408, 425, 429, 500-599]}. */
    static String ranges(Set<Integer> statuses) {
        java.util.List<Integer> sorted = new java.util.ArrayList<>(new java.util.TreeSet<>(statuses));
        java.util.List<String> parts = new java.util.ArrayList<>();
        for (int i = 0; i < sorted.size(); ) {
            int j = i;
            while (j + 1 < sorted.size() && sorted.get(j + 1) == sorted.get(j) + 1) {
                j++;
            }
            if (j - i >= 2) {
                parts.add(sorted.get(i) + "-" + sorted.get(j));
            } else {
                for (int k = i; k <= j; k++) {
                    parts.add(Integer.toString(sorted.get(k)));
                }
            }
            i = j + 1;
        }
        return "[" + String.join(", ", parts) + "]";
    }
}
