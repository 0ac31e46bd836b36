package dev.idem.spring.internal;

import dev.idem.IdemException;
import dev.idem.LeaseLostException;
import dev.idem.StoreException;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.web.bind.annotation.ControllerAdvice;
import org.springframework.web.bind.annotation.ExceptionHandler;

/**
 * Lets idem's own failures — the store failed, or another request took the key over — leave Spring MVC
 * untouched, so the idempotency filter answers them: 503 {@code store-unavailable} or 409
 * {@code key-in-use}, each with {@code Retry-After}. Without it, an application's catch-all
 * {@code @ExceptionHandler(RuntimeException.class)} would turn them into a 500, which a client reads as
 * final although retrying is safe (and the filter would not know the store failed).
 *
 * <p>First of all advice, it matches these exceptions, also as the cause of another. Rethrowing the
 * exception it was handed makes Spring continue without a handler: the exception propagates out of the
 * {@code DispatcherServlet} to the filter. A handler declared in the controller class itself still wins
 * over any advice; such a handler should rethrow {@link IdemException}s too.
 */
@ControllerAdvice
@Order(Ordered.HIGHEST_PRECEDENCE)
public class IdemFailurePassThrough {

    /** Rethrows the failure unchanged, for the filter. */
    @ExceptionHandler({StoreException.class, LeaseLostException.class})
    public void rethrow(IdemException failure) throws IdemException {
        throw failure;
    }
}
