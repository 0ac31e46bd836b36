package dev.idem.http;

import dev.idem.IdemException;
import dev.idem.IdempotencyKey;
import dev.idem.InvalidKeyException;
import dev.idem.LeaseLostException;
import dev.idem.Outcome;
import dev.idem.StoragePolicy;
import dev.idem.StoreException;
import dev.idem.StoredResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * The HTTP semantics of idempotency keys, without a web stack: how the key header is read, what is
 * answered for each {@link Outcome} and for store and lease failures (the status table of the
 * project's {@code docs/http.md}), the problem+json bodies ({@link Problem}) and the replay headers.
 * The Servlet filter is built on it; a WebFlux {@code WebFilter} or a Jakarta REST filter calls the
 * same rules and writes the {@link HttpAnswer}s it gets back.
 *
 * <p>Immutable and thread-safe.
 */
public final class HttpAnswers {
    /** Set on every replayed response. */
    public static final String REPLAYED_HEADER = "Idempotent-Replayed";
    /** Set on a stored response whose body was over the engine's cap and left out (the engine's marker). */
    public static final String BODY_OMITTED_HEADER = StoredResponse.BODY_OMITTED_HEADER;
    /** Set on a stored response some of whose headers could not be stored and were left out. */
    public static final String HEADERS_OMITTED_HEADER = "Idempotent-Headers-Omitted";
    /**
     * Stored, never sent: the names (comma-separated) of headers the handler only added to values an
     * outer filter had set, so a replay appends them to that filter's fresh values instead of replacing them.
     */
    public static final String APPENDED_HEADER = "Idempotent-Appended-Headers";
    /** Set by a handler to decline storage of its response ({@code no}); never sent to the client. */
    public static final String STORE_HEADER = StoragePolicy.DECLINE_HEADER;
    /**
     * Set on every answer to a covered request that reached the engine (executed, replayed, and idem's
     * own 409, 410, 422 and 503): how many whole seconds after its completion the key's response is
     * kept for replay ({@link #retentionHeader}). A client stops retrying a key once that long has
     * passed since its first attempt; never stored, so a replay carries the current value.
     */
    public static final String RETENTION_HEADER = "Idempotency-Key-Retention";

    /**
     * Never stored, so never replayed: cookies belong to the first caller's session; hop-by-hop
     * headers (RFC 9110 §7.6.1) describe one connection; {@code Date} is the time of sending;
     * {@code Content-Length} is recomputed; the idem headers are added fresh on replay.
     */
    private static final Set<String> NOT_STORED = caseInsensitive(
            "Set-Cookie", "Set-Cookie2",
            "Connection", "Keep-Alive", "Proxy-Authenticate", "Proxy-Authorization", "TE", "Trailer",
            "Transfer-Encoding", "Upgrade",
            "Date", "Content-Length",
            REPLAYED_HEADER, BODY_OMITTED_HEADER, HEADERS_OMITTED_HEADER, APPENDED_HEADER, STORE_HEADER, RETENTION_HEADER);

    private static final System.Logger LOG = System.getLogger(HttpAnswers.class.getName());
    private static final String INVALID_PREFIX = "idempotency key is invalid: ";

    private final String headerName;
    private final Duration failureRetryAfter;

    /**
     * @param headerName        the key header, named in the problems' details
     * @param failureRetryAfter the {@code Retry-After} of the answers to store and lease failures
     */
    public HttpAnswers(String headerName, Duration failureRetryAfter) {
        this.headerName = Objects.requireNonNull(headerName, "headerName is null");
        this.failureRetryAfter = Objects.requireNonNull(failureRetryAfter, "failureRetryAfter is null");
    }

    /** What a request's key header says: none sent, a valid key, or a refusal to answer with. */
    public sealed interface KeyHeader {
        /** No key header: the request passes through, or is answered {@link HttpAnswers#keyMissing()}. */
        record Absent() implements KeyHeader {
        }

        record Valid(IdempotencyKey key) implements KeyHeader {
        }

        /** Sent more than once, or not a valid key: answer this (400 {@code key-invalid}). */
        record Refused(HttpAnswer answer) implements KeyHeader {
        }
    }

    /**
     * Whether a handler's response header of this name is stored (and so replayed): not cookies,
     * hop-by-hop headers, {@code Date}, {@code Content-Length} or idem's own headers. Case-insensitive.
     */
    public static boolean storesHeader(String headerName) {
        return !NOT_STORED.contains(headerName);
    }

    private static Set<String> caseInsensitive(String... names) {
        Set<String> set = new TreeSet<>(String.CASE_INSENSITIVE_ORDER);
        set.addAll(List.of(names));
        return Collections.unmodifiableSet(set);
    }

    /** Reads the key header from its values, as the request carried them (empty: not sent). */
    public KeyHeader key(List<String> values) {
        if (values.isEmpty()) {
            return new KeyHeader.Absent();
        }
        if (values.size() > 1) {
            return new KeyHeader.Refused(Problem.KEY_INVALID.answer("The " + headerName + " header was sent " + values.size()
                    + " times; send it exactly once."));
        }
        try {
            return new KeyHeader.Valid(IdempotencyKey.parse(values.get(0)));
        } catch (InvalidKeyException e) {
            // The message names the broken rule and a position, never the value.
            String rule = e.getMessage();
            return new KeyHeader.Refused(Problem.KEY_INVALID.answer("The " + headerName + " header is invalid: "
                    + (rule.startsWith(INVALID_PREFIX) ? rule.substring(INVALID_PREFIX.length()) : rule) + "."));
        }
    }

    /** 400 {@code key-missing}: a route that requires a key got none. */
    public HttpAnswer keyMissing() {
        return Problem.KEY_MISSING.answer("This request requires an " + headerName + " header:"
                + " one unique value per logical request, reused on every retry of it.");
    }

    /** 413 {@code request-too-large}: the body is over what a keyed request may carry. */
    public HttpAnswer requestTooLarge(int maxRequestBytes) {
        return Problem.REQUEST_TOO_LARGE.answer("The request body is larger than the " + maxRequestBytes
                + " bytes accepted for a request with an " + headerName + ".");
    }

    /**
     * 400 {@code request-not-storable}: a completable route stores its request with the claim, and this
     * one breaks a rule of what can be stored ({@link StoredRequest}: its path, headers or body too long,
     * a control character in them); {@code rule} names the rule, never a value.
     */
    public HttpAnswer requestNotStorable(String rule) {
        return Problem.REQUEST_NOT_STORABLE.answer("This route stores its request for completion, and this request cannot be"
                + " stored: " + rule + ".");
    }

    /** 400 {@code malformed-json}; {@code reason} names what is wrong and where, never the body's text. */
    public HttpAnswer malformedJson(String reason) {
        return Problem.MALFORMED_JSON.answer(reason + ".");
    }

    /**
     * What to answer for an outcome in which the handler did not run: the stored response
     * ({@link #replay}), 409 {@code key-in-use} with {@code Retry-After}, 422 {@code key-mismatch},
     * or 410 {@code key-expired} (the key's request completed, its response is no longer kept).
     *
     * @throws IllegalArgumentException for {@link Outcome.Executed}: the handler's own response is the answer
     */
    public HttpAnswer answer(Outcome outcome) {
        Objects.requireNonNull(outcome, "outcome is null");
        if (outcome instanceof Outcome.Replayed replayed) {
            return replay(replayed.response());
        }
        if (outcome instanceof Outcome.InProgress inProgress) {
            return Problem.KEY_IN_USE.answer("A request with this " + headerName + " is still being processed;"
                    + " retry after the time in Retry-After to get its result.", inProgress.retryAfter());
        }
        if (outcome instanceof Outcome.Mismatch) {
            return Problem.KEY_MISMATCH.answer("This " + headerName + " was already used for a different request"
                    + " (method, path, query, content type or body); use a new key for a new request.");
        }
        if (outcome instanceof Outcome.Expired expired) {
            // The time and status only: the response itself is gone, and nothing ran again.
            return Problem.KEY_EXPIRED.answer("The request with this " + headerName + " was completed at "
                    + expired.completedAt() + " with status " + expired.status() + "; its response is no longer kept."
                    + " Nothing was run again.");
        }
        throw new IllegalArgumentException("an executed request is answered by its handler's own response");
    }

    /**
     * The {@value #RETENTION_HEADER} header for an engine keeping responses for {@code retention}:
     * its whole seconds, rounded down (a client that stops at that age never retries past it).
     */
    public static HttpAnswer.Header retentionHeader(Duration retention) {
        Objects.requireNonNull(retention, "retention is null");
        return HttpAnswer.Header.set(RETENTION_HEADER, Long.toString(Math.max(0, retention.toSeconds())));
    }

    /** {@code answer} with the {@linkplain #retentionHeader retention header} of {@code retention} set. */
    public static HttpAnswer advertisingRetention(HttpAnswer answer, Duration retention) {
        List<HttpAnswer.Header> headers = new ArrayList<>(answer.headers());
        headers.add(retentionHeader(retention));
        return new HttpAnswer(answer.status(), headers, answer.body());
    }

    /**
     * A stored response as a replay sends it: its status, its headers set in order (those it names in
     * {@value #APPENDED_HEADER} appended to the response's own instead), {@value #REPLAYED_HEADER}{@code : true},
     * and its body.
     */
    public static HttpAnswer replay(StoredResponse stored) {
        Set<String> appended = new TreeSet<>(String.CASE_INSENSITIVE_ORDER);
        for (String names : stored.headers().getOrDefault(APPENDED_HEADER, List.of())) {
            for (String name : names.split(",")) {
                appended.add(name.trim());
            }
        }
        List<HttpAnswer.Header> headers = new ArrayList<>();
        stored.headers().forEach((name, values) -> {
            if (APPENDED_HEADER.equalsIgnoreCase(name)) {
                return;
            }
            boolean replace = !appended.contains(name);
            for (String value : values) {
                headers.add(new HttpAnswer.Header(name, value, !replace));
                replace = false;
            }
        });
        headers.add(HttpAnswer.Header.set(REPLAYED_HEADER, "true"));
        return new HttpAnswer(stored.status(), headers, stored.body());
    }

    /**
     * What to answer for a failure of a covered request, if it is idem's: a lost lease (somewhere in
     * the cause chain) is 409 {@code key-in-use}, a store failure 503 {@code store-unavailable}, both
     * with the failure {@code Retry-After}; empty for any other failure, which belongs to the web stack.
     *
     * @param handlerStarted whether the handler had begun (the 503's detail then says the outcome is not final)
     */
    public Optional<HttpAnswer> failure(Throwable failure, boolean handlerStarted) {
        IdemException idemFailure = idemFailure(failure);
        if (idemFailure == null) {
            return Optional.empty();
        }
        if (idemFailure instanceof LeaseLostException) {
            // Another owner holds the key (or already completed it): from here, the key is in progress.
            return Optional.of(Problem.KEY_IN_USE.answer("Another request with this " + headerName + " took it over while this one"
                    + " was running; retry after the time in Retry-After to get the result that stands.", failureRetryAfter));
        }
        LOG.log(System.Logger.Level.WARNING, "idem store failed on a covered request; answered 503 store-unavailable", idemFailure);
        return Optional.of(Problem.STORE_UNAVAILABLE.answer(handlerStarted
                ? "The idempotency store failed while this request was processed, so its outcome was not recorded and"
                        + " this answer is not final. Retry with the same " + headerName + " after the time in Retry-After."
                : "The idempotency store could not be reached, so this request was not processed. Retry with the same "
                        + headerName + " after the time in Retry-After.", failureRetryAfter));
    }

    /** The store or lease failure in {@code failure}'s cause chain, or null if it has none. */
    private static IdemException idemFailure(Throwable failure) {
        Throwable t = failure;
        for (int depth = 0; t != null && depth < 32; depth++, t = t.getCause()) {
            if (t instanceof StoreException || t instanceof LeaseLostException) {
                return (IdemException) t;
            }
            if (t.getCause() == t) {
                break;
            }
        }
        return null;
    }

    /**
     * Checks an HTTP token (RFC 9110 §5.6.2), a method or a header name, for the filters' builders.
     *
     * @throws IllegalArgumentException naming {@code what} and the first character not allowed
     */
    public static String requireToken(String what, String value) {
        if (value == null || value.isEmpty()) {
            throw new IllegalArgumentException(what + " must be a non-empty HTTP token, was " + (value == null ? "null" : "empty"));
        }
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            boolean tchar = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
                    || "!#$%&'*+-.^_`|~".indexOf(c) >= 0;
            if (!tchar) {
                throw new IllegalArgumentException(what + " must be an HTTP token, was '" + printable(value)
                        + "' (character at position " + i + " is not allowed)");
            }
        }
        return value;
    }

    private static String printable(String value) {
        StringBuilder out = new StringBuilder();
        for (char c : value.toCharArray()) {
            out.append(c >= 0x20 && c < 0x7F ? String.valueOf(c) : String.format("\\u%04x", (int) c));
        }
        return out.toString();
    }

    @Override
    public String toString() {
        return "HttpAnswers[header=" + headerName + ", failureRetryAfter=" + failureRetryAfter + "]";
    }
}
