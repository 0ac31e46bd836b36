package dev.idem.spring;

import dev.idem.Execution;
import dev.idem.Fingerprint;
import dev.idem.Idem;
import dev.idem.IdempotencyKey;
import dev.idem.Operation;
import dev.idem.Outcome;
import dev.idem.StoredResponse;
import dev.idem.servlet.RequestRunner;
import dev.idem.spring.internal.MethodJson;
import dev.idem.spring.internal.MethodPolicy;
import java.lang.reflect.UndeclaredThrowableException;
import java.util.concurrent.atomic.AtomicReference;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;

/**
 * Runs an {@link IdempotentMethod} through its engine: the method is the operation, its return value
 * the stored response. The engine decides everything else (claim, wait, phases, give-back); this
 * class only maps arguments to key and fingerprint, and the outcome back to a return value or an
 * exception.
 *
 * <p>It runs outside the method's own transaction interceptor (its advisor comes first), so the
 * record completes after that transaction committed; a call inside its caller's transaction runs in
 * the JDBC store's transactional mode on that transaction instead (see {@code MethodTransactions}).
 * The return value is encoded, checked against the engine's cap and read back inside the operation,
 * after the method returned, and a value that fails any of these is stored as "not stored": the
 * method ran, so the key is never given back for it.
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
        MethodJson json = policies.json();
        Idem engine = policy.engine(policies::idem);
        Object[] arguments = invocation.getArguments();
        IdempotentMethodCall root = new IdempotentMethodCall(invocation.getThis(), policies.beanNameOf(invocation),
                policy.method(), arguments);
        IdempotencyKey key = policy.key(root, arguments);
        Fingerprint fingerprint = policy.fingerprint(root, arguments, json);
        RequestRunner joined = policies.transactions().joined(policy, engine);
        AtomicReference<Object> copy = new AtomicReference<>();
        Operation operation = execution -> {
            MethodPolicy.Stored stored = policy.stored(proceed(invocation, execution), json, engine.maxResponseBytes());
            copy.set(stored.copy());
            return stored.response();
        };
        Outcome outcome;
        try {
            outcome = joined != null ? joined.run(policy.scope(), key, fingerprint, operation)
                    : engine.execute(policy.scope(), key, fingerprint, operation);
        } catch (CheckedFailure e) {
            throw e.getCause(); // the method's own checked exception, unchanged
        }
        if (outcome instanceof Outcome.Executed executed) {
            requireStored(policy, executed.response());
            return copy.get(); // equal to what replays get, and not the object the method may still hold
        }
        if (outcome instanceof Outcome.Replayed replayed) {
            requireStored(policy, replayed.response());
            return policy.decode(replayed.response(), json);
        }
        if (outcome instanceof Outcome.InProgress inProgress) {
            throw new IdempotentMethodInProgressException(policy.scope(), inProgress.retryAfter());
        }
        if (outcome instanceof Outcome.Expired expired) {
            throw new IdempotentMethodExpiredException(policy.scope(), expired.completedAt());
        }
        throw new IdempotentMethodMismatchException(policy.scope());
    }

    private static void requireStored(MethodPolicy policy, StoredResponse response) {
        String reason = MethodPolicy.notStoredReason(response);
        if (reason != null) {
            throw new IdempotentMethodResultNotStoredException(policy.where(), reason);
        }
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
