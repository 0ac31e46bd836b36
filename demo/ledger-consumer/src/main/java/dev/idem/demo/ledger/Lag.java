package dev.idem.demo.ledger;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.errors.GroupIdNotFoundException;

/**
 * {@code GET /lag}: how many records of the topic the group has not committed yet, summed over the
 * topic's partitions: end offset minus the group's committed offset, or the end offset where the
 * group committed none. Asked of the broker with an admin client on every call, so it is the
 * broker's view: records written to the ledger but not yet committed to Kafka still count.
 */
final class Lag implements AutoCloseable {
    /** The answer when the lag cannot be computed (broker unreachable, no such topic). */
    static final long UNKNOWN = -1;
    private static final long CALL_TIMEOUT_MS = 5_000;

    private final Admin admin;
    private final String topic;
    private final String group;
    private volatile String lastProblem;

    Lag(String bootstrapServers, String topic, String group) {
        this.topic = Objects.requireNonNull(topic, "topic is null");
        this.group = Objects.requireNonNull(group, "group is null");
        this.admin = Admin.create(Map.of(
                AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers,
                AdminClientConfig.CLIENT_ID_CONFIG, "ledger-consumer-lag-" + group,
                AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, (int) CALL_TIMEOUT_MS,
                AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int) CALL_TIMEOUT_MS * 2));
    }

    /** The lag now, or {@link #UNKNOWN}; the first of a run of identical failures is printed to stderr. */
    long current() {
        try {
            long lag = compute();
            lastProblem = null;
            return lag;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return UNKNOWN;
        } catch (ExecutionException | TimeoutException | RuntimeException e) {
            Throwable cause = e instanceof ExecutionException && e.getCause() != null ? e.getCause() : e;
            String problem = cause.getClass().getSimpleName() + ": " + cause.getMessage();
            if (!problem.equals(lastProblem)) {
                lastProblem = problem;
                System.err.println("ledger-consumer: cannot compute the lag of group " + group + " on " + topic + " (" + problem + ")");
            }
            return UNKNOWN;
        }
    }

    private long compute() throws InterruptedException, ExecutionException, TimeoutException {
        TopicDescription description = admin.describeTopics(List.of(topic)).allTopicNames()
                .get(CALL_TIMEOUT_MS, TimeUnit.MILLISECONDS).get(topic);
        Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
        for (TopicPartitionInfo partition : description.partitions()) {
            latest.put(new TopicPartition(topic, partition.partition()), OffsetSpec.latest());
        }
        Map<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> ends = admin.listOffsets(latest).all()
                .get(CALL_TIMEOUT_MS, TimeUnit.MILLISECONDS);
        Map<TopicPartition, OffsetAndMetadata> committed = committed();
        long lag = 0;
        for (TopicPartition tp : latest.keySet()) {
            long end = ends.get(tp).offset();
            OffsetAndMetadata offset = committed.get(tp);
            lag += Math.max(0, end - (offset == null ? 0 : offset.offset()));
        }
        return lag;
    }

    /** The group's committed offsets; none for a group the broker does not know (yet). */
    private Map<TopicPartition, OffsetAndMetadata> committed() throws InterruptedException, ExecutionException, TimeoutException {
        try {
            Map<TopicPartition, OffsetAndMetadata> offsets = admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata()
                    .get(CALL_TIMEOUT_MS, TimeUnit.MILLISECONDS);
            // A partition without a commit may come back with a null value.
            Map<TopicPartition, OffsetAndMetadata> present = new HashMap<>();
            offsets.forEach((tp, o) -> {
                if (o != null) {
                    present.put(tp, o);
                }
            });
            return present;
        } catch (ExecutionException e) {
            if (e.getCause() instanceof GroupIdNotFoundException) {
                return Map.of();
            }
            throw e;
        }
    }

    @Override
    public void close() {
        admin.close(java.time.Duration.ofSeconds(5));
    }
}
