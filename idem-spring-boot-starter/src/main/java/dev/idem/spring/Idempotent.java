package dev.idem.spring;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Makes a Spring MVC endpoint idempotent under the {@code Idempotency-Key} header: the first request
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
