package dev.idem.client.internal;

import dev.idem.client.RetryRules;
import java.net.http.HttpRequest;
import java.time.Clock;
import java.time.Duration;
import java.util.Objects;
import java.util.Set;

/**
 * The immutable settings a builder produced: the retry decisions ({@link RetryRules}, shared with
 * every other idem client) plus what only java.net.http needs. Starts one {@link LogicalRequest} per call.
 */
public final class RetryPolicy {
    final String headerName;
    final RetryRules rules;
    final Duration attemptTimeout; // null: none beyond the request's own and the deadline
    final boolean generateKeys;
    final int maxRequestBodyBytes;

    public RetryPolicy(String headerName, RetryRules rules, Duration attemptTimeout, boolean generateKeys,
                       int maxRequestBodyBytes) {
        this.headerName = headerName;
        this.rules = rules;
        this.attemptTimeout = attemptTimeout;
        this.generateKeys = generateKeys;
        this.maxRequestBodyBytes = maxRequestBodyBytes;
    }

    public static boolean isIdempotentMethod(String method) {
        return RetryRules.isIdempotentMethod(method);
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
            body = RequestBody.read(request.bodyPublisher().get(), maxRequestBodyBytes, rules.deadline());
        }
        return new LogicalRequest(this, request, key, rules.start(retriesAllowed), body);
    }

    /** Whether a 409's problem type must be read to decide (see {@link RetryRules#readsConflictProblemTypes()}). */
    public boolean readsConflictProblemTypes() {
        return rules.readsConflictProblemTypes();
    }

    public String headerName() {
        return headerName;
    }

    public Clock clock() {
        return rules.clock();
    }

    @Override
    public String toString() {
        return "headerName=" + headerName + ", " + rules
                + ", attemptTimeout=" + (attemptTimeout == null ? "none" : attemptTimeout.toString())
                + ", generateKeys=" + generateKeys + ", maxRequestBodyBytes=" + maxRequestBodyBytes;
    }

    /** The statuses in order, runs of three or more as {@code first-last}: {@code [408, 425, 429, 500-599]}. */
    public static String ranges(Set<Integer> statuses) {
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
