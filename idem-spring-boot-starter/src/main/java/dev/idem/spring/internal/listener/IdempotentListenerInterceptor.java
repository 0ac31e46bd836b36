package dev.idem.spring.internal.listener;

import dev.idem.inbox.Inbox;
import dev.idem.inbox.InboxMessage;
import dev.idem.inbox.InboxOutcome;
import dev.idem.jdbc.support.Transactions;
import java.lang.reflect.Method;
import java.sql.Connection;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.aop.ProxyMethodInvocation;
import org.springframework.jdbc.datasource.DataSourceUtils;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The advice around an {@code @IdempotentListener} method: in one Spring transaction of the inbox's
 * {@code DataSource}, the message ids are claimed on the transaction's connection and the method runs
 * for the new ones (its JDBC or JPA work joins the transaction); then the transaction commits, and
 * only then does the advice return, so the container acknowledges after the commit. A duplicate
 * returns at once; a failure rolls back, is counted ({@link Inbox#recordFailure}) and is rethrown for
 * a redelivery, unless it quarantined the message, which then counts as settled.
 */
public final class IdempotentListenerInterceptor implements MethodInterceptor {
    private static final Log LOG = LogFactory.getLog(IdempotentListenerInterceptor.class);
    /** The method was not called: every message of the delivery was processed before. */
    private static final Object NOTHING_NEW = new Object();

    private final Map<Method, ListenerMethod> methods;
    private final Supplier<Inbox> inbox;
    private final Supplier<TransactionTemplate> transactions;
    private final Supplier<ListenerTracing> tracing;
    private final Supplier<ListenerMeters> meters;

    public IdempotentListenerInterceptor(Map<Method, ListenerMethod> methods, Supplier<Inbox> inbox,
                                         Supplier<TransactionTemplate> transactions, Supplier<ListenerTracing> tracing,
                                         Supplier<ListenerMeters> meters) {
        this.methods = methods;
        this.inbox = inbox;
        this.transactions = transactions;
        this.tracing = tracing;
        this.meters = meters;
    }

    @Override
    public Object invoke(MethodInvocation invocation) throws Throwable {
        ListenerMethod listener = methods.get(invocation.getMethod());
        if (listener == null) {
            return invocation.proceed();
        }
        Object[] args = invocation.getArguments();
        Object argument = args[listener.message()];
        List<?> elements = listener.batch() ? (List<?>) argument : Collections.singletonList(argument);
        if (elements == null || elements.isEmpty()) {
            return invocation.proceed();
        }
        DeferredAcknowledgement ack = listener.ack() < 0 || args[listener.ack()] == null ? null
                : listener.broker().defer(args[listener.ack()], elements, args);
        if (ack != null) {
            args[listener.ack()] = ack.argument();
        }
        Map<String, Integer> firsts = identify(listener, elements);
        Object result = traced(listener, invocation, elements, firsts, ack);
        if (result == NOTHING_NEW) {  // every message a duplicate, or the failed one quarantined
            settle(ack);
            return null;
        }
        return result;
    }

    /**
     * {@link #run} in the tracing's span, with its outcome for the span and the meters: a quarantined
     * message is settled, like a duplicate, not an error of the span.
     */
    private Object traced(ListenerMethod listener, MethodInvocation invocation, List<?> elements, Map<String, Integer> firsts,
                          DeferredAcknowledgement ack) throws Throwable {
        ListenerBroker broker = listener.broker();
        Supplier<List<Map<String, String>>> headers = () -> elements.stream().map(broker::headers).toList();
        return tracing.get().around(broker.system(), broker.destination(elements.get(0)), listener.consumer(), headers, traced -> {
            Consumer<String> outcome = traced.andThen(o -> meters.get().delivered(listener.consumer(), o));
            try {
                Object result = run(listener, invocation, elements, firsts, ack);
                outcome.accept(result == NOTHING_NEW ? "duplicate" : "processed");
                return result;
            } catch (Settled settled) {
                outcome.accept(settled.outcome);
                return NOTHING_NEW;
            } catch (Throwable e) {
                outcome.accept("failed");
                throw e;
            }
        });
    }

    /** Each message id, with the index of its first occurrence in the delivery. */
    private static Map<String, Integer> identify(ListenerMethod listener, List<?> elements) {
        Map<String, Integer> firsts = new LinkedHashMap<>();
        for (int i = 0; i < elements.size(); i++) {
            String id;
            try {
                id = listener.ids().apply(elements.get(i));
            } catch (RuntimeException e) {
                throw listener.broker().unidentified("@IdempotentListener on " + listener.where()
                        + ": reading the message id failed: " + e.getClass().getName());
            }
            if (id == null || id.isEmpty()) {
                throw listener.broker().unidentified("@IdempotentListener on " + listener.where()
                        + ": a message has no message id, so it cannot be processed once");
            }
            firsts.putIfAbsent(id, i);
        }
        return firsts;
    }

    private Object run(ListenerMethod listener, MethodInvocation invocation, List<?> elements, Map<String, Integer> firsts,
                       DeferredAcknowledgement ack) throws Throwable {
        try {
            return inTransaction(listener, invocation, elements, firsts, ack);
        } catch (Throwable failure) {
            Throwable cause = unwrap(failure);
            if (Transactions.isRetryable(cause)) {
                throw cause;  // the database broke a race (deadlock, serialization): redeliver, nothing to count
            }
            if (firsts.size() == 1) {
                int index = firsts.values().iterator().next();
                Throwable answer = failed(listener, elements, firsts.keySet().iterator().next(), index, cause);
                throw answer instanceof Settled ? answer : unsettled(listener, answer, index);
            }
            return oneByOne(listener, invocation, elements, firsts, ack);
        }
    }

    /**
     * After a batch failed: as the inbox does for its own batches, one transaction per message, so the
     * failing ones are counted and the others commit, also those behind a failure (a container may
     * give up on the delivery: what it drops must be settled). Then the first failure that is not
     * quarantined is named to the container ({@link ListenerBroker#failedInBatch}) for a redelivery
     * from it; its committed messages are duplicates then.
     */
    private Object oneByOne(ListenerMethod listener, MethodInvocation invocation, List<?> elements, Map<String, Integer> firsts,
                            DeferredAcknowledgement ack) throws Throwable {
        Object last = NOTHING_NEW;
        Throwable unsettled = null;
        int unsettledIndex = -1;
        for (Map.Entry<String, Integer> first : firsts.entrySet()) {
            Map<String, Integer> one = Map.of(first.getKey(), first.getValue());
            MethodInvocation copy = ((ProxyMethodInvocation) invocation).invocableClone(invocation.getArguments().clone());
            try {
                Object result = inTransaction(listener, copy, elements, one, ack);
                last = result == NOTHING_NEW ? last : result;
            } catch (Throwable single) {
                Throwable cause = unwrap(single);
                if (Transactions.isRetryable(cause)) {
                    throw cause;
                }
                Throwable answer = failed(listener, elements, first.getKey(), first.getValue(), cause);
                if (!(answer instanceof Settled) && unsettled == null) {
                    unsettled = answer;
                    unsettledIndex = first.getValue();
                }
            }
        }
        if (unsettled != null) {
            throw unsettled(listener, unsettled, unsettledIndex);
        }
        return last;
    }

    /**
     * What is thrown for a message the inbox has not settled: noted as such for the container's error
     * handler, and for a batch listener naming the message's index (also in a batch of one).
     */
    private static Throwable unsettled(ListenerMethod listener, Throwable cause, int index) {
        UnsettledFailures.remember(cause);
        return listener.batch() ? UnsettledFailures.remember(listener.broker().failedInBatch(cause, index)) : cause;
    }

    /**
     * Counts the failed attempt: the cause to rethrow for a redelivery, or {@link Settled} when the
     * message needs no redelivery: quarantined now, or processed after all (a commit that reached the
     * database but whose answer was lost; the inbox counts nothing then).
     */
    private Throwable failed(ListenerMethod listener, List<?> elements, String id, int index, Throwable cause) {
        byte[] payload = listener.broker().payload(elements.get(index));
        long deliveries = listener.broker().deliveries(elements.get(index));
        InboxOutcome outcome = inbox.get().recordFailure(listener.consumer(), InboxMessage.of(id, payload), cause, deliveries);
        if (outcome.status() == InboxOutcome.Status.QUARANTINED) {
            LOG.warn("@IdempotentListener consumer '" + listener.consumer() + "' quarantined a message after "
                    + outcome.attempts() + " failed attempts, the last " + cause.getClass().getName());
        }
        if (!outcome.settled()) {
            return cause;
        }
        return new Settled(outcome.status() == InboxOutcome.Status.QUARANTINED ? "quarantined" : "duplicate");
    }

    private static Throwable unwrap(Throwable failure) {
        return failure instanceof Failed f ? f.getCause() : failure;
    }

    /** Claims the ids and runs the method for the new messages, in one transaction; NOTHING_NEW if none is new. */
    private Object inTransaction(ListenerMethod listener, MethodInvocation invocation, List<?> elements,
                                 Map<String, Integer> firsts, DeferredAcknowledgement ack) {
        Inbox box = inbox.get();
        return transactions.get().execute(status -> {
            Connection connection = DataSourceUtils.getConnection(box.dataSource());
            try {
                Set<String> fresh = box.claimBatch(connection, listener.consumer(), firsts.keySet());
                if (fresh.isEmpty()) {
                    return NOTHING_NEW;
                }
                pass(listener, invocation, elements, firsts, fresh, ack);
                if (ack != null) {
                    TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
                        @Override
                        public void afterCompletion(int status) {
                            if (status == STATUS_COMMITTED) {
                                ack.replay();
                            } else {
                                ack.discard();
                            }
                        }
                    });
                }
                return invocation.proceed();
            } catch (RuntimeException | Error e) {
                throw e;
            } catch (Throwable e) {
                throw new Failed(e);
            } finally {
                DataSourceUtils.releaseConnection(connection, box.dataSource());
            }
        });
    }

    /** A batch method gets a list of its new messages only. */
    private static void pass(ListenerMethod listener, MethodInvocation invocation, List<?> elements, Map<String, Integer> firsts,
                             Set<String> fresh, DeferredAcknowledgement ack) {
        if (!listener.batch()) {
            return;
        }
        List<Object> passed = new ArrayList<>(fresh.size());
        List<Integer> indexes = new ArrayList<>(fresh.size());
        for (String id : fresh) {
            int index = firsts.get(id);
            passed.add(elements.get(index));
            indexes.add(index);
        }
        invocation.getArguments()[listener.message()] = passed;
        if (ack != null) {
            ack.passed(indexes);
        }
    }

    private static void settle(DeferredAcknowledgement ack) {
        if (ack != null) {
            ack.settle();
        }
    }

    /** A checked exception of the method, carried through the transaction template. */
    private static final class Failed extends RuntimeException {
        Failed(Throwable cause) {
            super(cause);
        }
    }

    /**
     * The failed message went to the quarantine, or had committed after all (a duplicate): the
     * delivery is settled, with that outcome for the span and the meters.
     */
    private static final class Settled extends RuntimeException {
        private final String outcome;

        Settled(String outcome) {
            super(null, null, false, false);
            this.outcome = outcome;
        }
    }
}
