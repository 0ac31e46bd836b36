package dev.idem.spring;

import dev.idem.Execution;
import dev.idem.Fingerprint;
import dev.idem.IdempotencyKey;
import dev.idem.Outcome;
import dev.idem.spring.internal.MethodPolicy;
import java.lang.reflect.UndeclaredThrowableException;
import java.util.concurrent.atomic.AtomicReference;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import tools.jackson.databind.json.JsonMapper;

/**
 * Runs an {@link IdempotentMethod} through its engine: the method is the operation, its return value
 * the stored response. The engine decides everything else (claim, wait, phases, give-back); this
 * class only maps arguments to key and fingerprint, and the outcome back to a return value or an
 * exception.
 */
final class IdempotentMethodInterceptor implements MethodInterceptor {
    private final IdempotentMethodPostProcessor policies;

    IdempotentMethodInterceptor(IdempotentMethodPostProcessor policies) {
        this.policies = policies;
    }

    @Override
    public Object invoke(MethodInvocation invocation) throws Throwable {
        MethodPolicy policy = policies.policyOf(invocation);
        if (policy == null) {
            return invocation.proceed();
        }
        JsonMapper mapper = policies.jsonMapper();
        Object[] arguments = invocation.getArguments();
        IdempotencyKey key = policy.key(arguments);
        Fingerprint fingerprint = policy.fingerprint(arguments, mapper);
        AtomicReference<Object> returned = new AtomicReference<>();
        Outcome outcome;
        try {
            outcome = policy.engine(policies::idem).execute(policy.scope(), key, fingerprint, execution -> {
                Object value = proceed(invocation, execution);
                returned.set(value);
                return policy.encode(value, mapper);
            });
        } catch (CheckedFailure e) {
            throw e.getCause(); // the method's own checked exception, unchanged
        }
        if (outcome instanceof Outcome.Executed) {
            return returned.get();
        }
        if (outcome instanceof Outcome.Replayed replayed) {
            return policy.decode(replayed.response(), mapper);
        }
        if (outcome instanceof Outcome.InProgress inProgress) {
            throw new IdempotentMethodInProgressException(policy.scope(), inProgress.retryAfter());
        }
        throw new IdempotentMethodMismatchException(policy.scope());
    }

    /** Runs the method with its execution visible to {@link IdemMethods}; checked exceptions pass the engine wrapped. */
    private static Object proceed(MethodInvocation invocation, Execution execution) {
        Execution previous = IdemMethods.enter(execution);
        try {
            return invocation.proceed();
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Exception e) {
            throw new CheckedFailure(e);
        } catch (Throwable t) {
            throw new UndeclaredThrowableException(t);
        } finally {
            IdemMethods.leave(previous);
        }
    }

    /**
     * Carries a checked exception of the method through the engine, which gives the key back for it
     * like for any failure; unwrapped before the caller sees it.
     */
    private static final class CheckedFailure extends RuntimeException {
        private static final long serialVersionUID = 1L;

        CheckedFailure(Exception cause) {
            super(null, cause, false, false);
        }
    }
}
