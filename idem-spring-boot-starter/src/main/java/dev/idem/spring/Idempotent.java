package dev.idem.spring;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Makes a Spring MVC or Spring WebFlux endpoint idempotent under the {@code Idempotency-Key} header: the first request
 * with a key runs the handler, and every repeat gets its stored response with
 * {@code Idempotent-Replayed: true}.
 *
 * <pre>{@code
 * @PostMapping("/payments")
 * @Idempotent
 * Payment pay(@RequestBody PaymentRequest request) { ... }
 * }</pre>
 *
 * On a method, or on a controller class for all its handler methods (the method's annotation wins).
 * Only requests whose method is covered ({@code idem.methods}, default POST and PATCH) are
 * considered. With {@code idem.default-policy=annotated} (the default) only annotated endpoints are
 * idempotent; with {@code all}, every handler method is, and this annotation adjusts it.
 *
 * <p>Durations are Spring Boot duration strings ({@code 30s}, {@code 5m}, {@code 24h}, {@code PT1H})
 * and may use {@code ${…}} placeholders; empty means the global setting. Values are checked when the
 * application starts: a bad one fails startup with a message naming the method.
 *
 * <p>On WebFlux (idem-webflux on the class path) the same rules hold, with one exception:
 * {@link #transactional()} fails startup, since a JDBC transaction is bound to one thread. A functional
 * route takes {@code IdempotentRouteFilter.of(filter)} with the starter's {@code IdempotencyWebFilter}.
 */
@Target({ElementType.METHOD, ElementType.TYPE})
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface Idempotent {

    /**
     * Whether a request without a key is refused (400, {@code urn:idem:problem:key-missing}). With
     * {@code false}, a request without a key runs without idempotency, and one with a key is covered.
     */
    boolean required() default true;

    /** How long the stored response is replayable, e.g. {@code "7d"}. Empty: {@code idem.retention}. */
    String retention() default "";

    /** How long the running handler holds the key between renewals, e.g. {@code "2m"}. Empty: {@code idem.lease}. */
    String lease() default "";

    /** What a request finds when another with the same key is still running. Default: {@code idem.in-flight}. */
    InFlight inFlight() default InFlight.DEFAULT;

    /**
     * With {@link InFlight#WAIT}: how long to wait for the running request's result before answering
     * 409. Empty: {@code idem.max-wait}.
     */
    String maxWait() default "";

    /**
     * The handler's response statuses that are <em>not</em> stored for replay on this endpoint: the
     * caller gets the response, the key is released, and a retry runs the handler again. A
     * comma-separated list of statuses ({@code "429"}) and classes ({@code "5xx"}), or {@code "none"}
     * to store every status (the engine still never stores a 5xx); may use {@code ${…}} placeholders.
     * Empty: {@code idem.not-stored-statuses} (default {@code 408, 409, 425, 429, 5xx}). For one
     * response, the handler can decline storage with the response header {@code Idempotent-Store: no}
     * (e.g. {@code ResponseEntity.status(202).header("Idempotent-Store", "no")}), which the filter
     * removes. On a {@link #transactional()} endpoint a response that is not stored rolls the
     * transaction back, as an exception does.
     */
    String notStored() default "";

    /**
     * Runs the claim, the handler and the stored response in <em>one</em> database transaction, for an
     * endpoint whose effects all live in the idem store's database: one commit instead of three, and
     * no moment at which the handler's rows exist without the stored response or the other way round.
     *
     * <p>The starter opens a transaction with the application's {@code PlatformTransactionManager} of
     * the store's {@code DataSource} (propagation {@code REQUIRED}), claims the key on its connection,
     * runs the handler, and stores the response on the same connection. Everything the handler writes
     * through Spring's transaction-bound connection — {@code JdbcTemplate}, a {@code @Transactional}
     * service (it joins), JPA with a manager of this {@code DataSource} — commits with them. It commits
     * only when the response is stored (see {@link #notStored()}); a response that is not stored, an
     * exception, a replay or a mismatch roll it back, so the handler's rows vanish with the claim and a retry runs again. A
     * process that dies mid-handler leaves an open transaction the database rolls back: the same.
     *
     * <p>Not for handlers that call anything outside the database (a card gateway, a broker, e-mail): a
     * rollback cannot undo such a call, and a retry would repeat it. Run those as phases
     * ({@code IdempotencyFilter.execution(request)}) without this attribute. A transactional endpoint
     * has no phases ({@code execution} is empty), no lease renewal and no in-flight policy: a duplicate
     * waits on the uncommitted claim's row lock until the first transaction ends, then gets its
     * response (or runs, if it rolled back); so {@link #lease()}, {@link #inFlight()} and
     * {@link #maxWait()} must stay unset, and the handler should be short. If a transaction is already
     * open on the thread (a {@code @Transactional} test driving MockMvc), the endpoint joins it, and
     * that transaction's owner decides whether anything commits.
     *
     * <p>Startup fails, naming the method, if the store is not a {@code JdbcIdempotencyStore}, if
     * spring-jdbc is missing, or if no {@code PlatformTransactionManager} binds the store's
     * {@code DataSource}.
     */
    boolean transactional() default false;

    /**
     * Stores the request with the claim, so that the starter's completer finishes a record whose client
     * never came back: after its lease ended and {@code idem.completer.delay} passed, the completer
     * takes the record over and runs the stored request through the {@code DispatcherServlet} inside
     * the application (never by an HTTP call to itself); the handler's finished
     * {@linkplain dev.idem.servlet.IdempotencyFilter#execution phases} return their stored results, the
     * rest run, and its response is stored for the client's late retry. Spring MVC only.
     *
     * <p>What is stored — the method, path and query, {@code Content-Type} and {@code Accept}, the body —
     * may hold personal data, and stays in the record while it lives. The re-run request has no
     * principal, session, cookies or other headers, and the filters in front of the
     * {@code DispatcherServlet} (security, request ids) do not run for it: the handler must not need
     * them. Refused at startup, naming the method: with {@link #transactional()}, on a handler whose
     * mapping does not name exactly one HTTP method and one path (unless {@link #operation()} names it),
     * on WebFlux, and when two handlers get one operation name.
     */
    boolean completable() default false;

    /**
     * The name a {@link #completable()} route's records store, which the completer runs them by: 1-64
     * visible ASCII characters, stable across releases. Empty: derived from the route,
     * {@code http:<METHOD>:<path pattern>} (e.g. {@code http:POST:/payments}; a pattern too long for
     * 64 characters is cut and ends with a hash of the whole).
     */
    String operation() default "";

    /** The in-flight policy of one endpoint. */
    enum InFlight {
        /** The global {@code idem.in-flight} (or the policy of the application's own {@code Idem} bean). */
        DEFAULT,
        /** Answer 409 {@code urn:idem:problem:key-in-use} with {@code Retry-After} at once. */
        REJECT,
        /** Wait up to {@link Idempotent#maxWait()} for the result and answer with it (else 409). */
        WAIT
    }
}
