package dev.idem.jakarta.rest;

import jakarta.ws.rs.NameBinding;
import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Makes a resource method (or every resource method of a class) idempotent under the client's
 * {@code Idempotency-Key}, once {@link IdempotencyFeature} is registered: the first request with a key
 * runs the method and its response is stored; a retry gets the stored response with
 * {@code Idempotent-Replayed: true}. An annotation on the method wins over one on its class.
 *
 * <p>A name binding: an application may bind filters of its own to the same methods.
 */
@NameBinding
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.TYPE, ElementType.METHOD})
public @interface Idempotent {
    /**
     * Whether a request without the key header is refused (400 {@code key-missing}); if false it runs
     * as if the method were not annotated. A key that is sent is always used. Default true.
     */
    boolean keyRequired() default true;
}
