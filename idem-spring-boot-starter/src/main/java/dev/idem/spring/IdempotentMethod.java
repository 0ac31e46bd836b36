package dev.idem.spring;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Makes a method of a Spring bean idempotent under a key computed from its arguments: the first call
 * with a key runs the method and stores its return value; every later call with that key gets the
 * stored value without running the method again.
 *
 * <pre>{@code
 * @Service
 * class Payments {
 *     @IdempotentMethod(key = "#order.id", fingerprint = "#order.amount")
 *     Receipt charge(Order order) { ... }
 * }
 * }</pre>
 *
 * <p>The call goes through the application's {@code Idem} engine and store, as an {@link Idempotent}
 * endpoint does (this annotation is separate because {@code @Idempotent} means the HTTP header).
 * The return value is stored as JSON with the application's {@code JsonMapper} and read back as the
 * method's generic return type, so it must round-trip through JSON; the first caller gets a copy
 * read back from the stored JSON too, equal to what replays get. A {@code void} method stores
 * nothing but is still run once per key. If the method throws, the key is given back and the
 * exception propagates unchanged: a retry runs the method again (or resumes after its last
 * {@linkplain IdemMethods#currentExecution() phase}). A return value that cannot be stored (encoding
 * fails, over {@code idem.max-response-bytes}, does not read back) is a failure after the effect:
 * every call with the key gets {@link IdempotentMethodResultNotStoredException} and the method does
 * not run again. Only calls through the Spring proxy are covered (not calls from inside the same
 * bean). Methods returning a {@code Future}, {@code CompletionStage} or reactive type, and return
 * types whose JSON cannot be read back ({@code Object}, an interface or abstract class without type
 * information, a class without properties), are refused at startup.
 *
 * <p>With {@code @Transactional}, the record completes after the method's transaction committed (a
 * failing commit gives the key back). A call inside a transaction already open at entry that the
 * method takes part in runs in the JDBC store's transactional mode on that transaction, so the
 * record commits or rolls back with it; with another store it is refused before anything runs.
 *
 * <p>Expressions are SpEL over the arguments: {@code #name} (the class must be compiled with
 * {@code -parameters}, as Spring Boot's build plugins do) or {@code #p0}, {@code #a0}; the root
 * object is the {@link IdempotentMethodCall} ({@code #root.target}, {@code #root.beanName},
 * {@code #root.method}, {@code #root.args}). Durations are
 * Spring Boot duration strings and may use {@code ${…}} placeholders; empty means the global
 * setting. Everything is checked when the application starts: a bad value fails startup with a
 * message naming the method.
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface IdempotentMethod {

    /**
     * The key, a SpEL expression over the arguments ({@code "#order.id"}, {@code "#p0 + ':' + #p1"}).
     * Its value's {@code toString()} must be 1–255 visible ASCII characters; a {@code null} key
     * fails the call with an {@code IllegalArgumentException}.
     */
    String key();

    /**
     * SpEL expressions of the arguments that identify the request beside the key. A call with the
     * same key but other values (compared as JSON, map entries sorted by key) is refused with
     * {@link IdempotentMethodMismatchException} and nothing runs. Empty: the key alone identifies it.
     */
    String[] fingerprint() default {};

    /**
     * The operation's name in the store and in meters. Empty: the bean's class, the method's name and
     * its parameter types ({@code com.acme.Payments#charge(com.acme.Order)}), led by the bean's name
     * when several beans share the class ({@code eurLedger:com.acme.Ledger#post(java.lang.String)}),
     * so equal keys of different methods, overloads or beans never collide. Set it to keep records
     * when the class, the signature or the beans change, or to share keys between methods on purpose.
     */
    String scope() default "";

    /** How long the stored value is replayable, e.g. {@code "7d"}. Empty: {@code idem.retention}. */
    String retention() default "";

    /** How long the running method holds the key between renewals, e.g. {@code "2m"}. Empty: {@code idem.lease}. */
    String lease() default "";

    /**
     * What a call finds when another with the same key is still running: with
     * {@link Idempotent.InFlight#REJECT REJECT}, an {@link IdempotentMethodInProgressException} at
     * once; with {@link Idempotent.InFlight#WAIT WAIT}, the running call's result (or that exception
     * after {@link #maxWait()}). Default: {@code idem.in-flight}.
     */
    Idempotent.InFlight inFlight() default Idempotent.InFlight.DEFAULT;

    /** With {@link Idempotent.InFlight#WAIT}: how long to wait for the running call. Empty: {@code idem.max-wait}. */
    String maxWait() default "";
}
