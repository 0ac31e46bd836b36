package dev.idem.kafka;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TimeoutException;

/**
 * Wraps a real {@link org.apache.kafka.clients.consumer.KafkaConsumer} (a JDK proxy; everything is
 * passed through to the real broker client) to watch and to kill: it counts offset commits, records
 * what each poll returned, and can make the process "die" ({@link Crash}) at the n-th offset commit
 * (after the database commit, before the offsets reach Kafka) or at the poll after n non-empty ones, or fail commits
 * made outside a rebalance callback as a timeout would.
 */
final class Probe {
    /** The process dies here. An Error, so that nothing on the way catches it as a failure to handle. */
    static final class Crash extends Error {
        private static final long serialVersionUID = 1L;

        Crash(String where) {
            super("simulated crash " + where);
        }
    }

    final AtomicInteger commitCalls = new AtomicInteger();
    final AtomicInteger pollCalls = new AtomicInteger();
    /** Per non-empty poll: the message ids of its records, in order. */
    final List<List<String>> polls = new CopyOnWriteArrayList<>();
    volatile int crashAtCommit = -1;
    /** Dies at the poll after this many non-empty polls (all of whose work committed). */
    volatile int crashAfterBatches = -1;
    volatile boolean failCommitsOutsideRebalance;
    private volatile boolean inRebalance;

    @SuppressWarnings("unchecked")
    <K, V> Consumer<K, V> wrap(Consumer<K, V> real) {
        InvocationHandler handler = (proxy, method, args) -> invoke(real, method, args);
        return (Consumer<K, V>) Proxy.newProxyInstance(Consumer.class.getClassLoader(), new Class<?>[] {Consumer.class}, handler);
    }

    private Object invoke(Consumer<?, ?> real, Method method, Object[] args) throws Throwable {
        String name = method.getName();
        if (name.equals("commitSync") || name.equals("commitAsync")) {
            int n = commitCalls.incrementAndGet();
            if (n == crashAtCommit) {
                throw new Crash("after the database commit, before offset commit #" + n);
            }
            if (failCommitsOutsideRebalance && !inRebalance) {
                throw new TimeoutException("simulated: the offset commit timed out");
            }
        }
        if (name.equals("poll")) {
            pollCalls.incrementAndGet();
            if (crashAfterBatches >= 0 && polls.size() >= crashAfterBatches) {
                throw new Crash("at the poll after " + polls.size() + " batches, whose work committed");
            }
        }
        if (name.equals("subscribe") && args != null && args.length == 2 && args[1] instanceof ConsumerRebalanceListener listener) {
            args = new Object[] {args[0], watching(listener)};
        }
        Object result;
        try {
            result = method.invoke(real, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
        if (name.equals("poll") && result instanceof ConsumerRecords<?, ?> records && !records.isEmpty()) {
            List<String> ids = new ArrayList<>();
            for (ConsumerRecord<?, ?> r : records) {
                ids.add(KafkaMessageIds.standard().messageId(r));
            }
            polls.add(ids);
        }
        return result;
    }

    private ConsumerRebalanceListener watching(ConsumerRebalanceListener listener) {
        return new ConsumerRebalanceListener() {
            @Override
            public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
                inRebalance = true;
                try {
                    listener.onPartitionsRevoked(partitions);
                } finally {
                    inRebalance = false;
                }
            }

            @Override
            public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
                inRebalance = true;
                try {
                    listener.onPartitionsAssigned(partitions);
                } finally {
                    inRebalance = false;
                }
            }

            @Override
            public void onPartitionsLost(Collection<TopicPartition> partitions) {
                inRebalance = true;
                try {
                    listener.onPartitionsLost(partitions);
                } finally {
                    inRebalance = false;
                }
            }
        };
    }
}
