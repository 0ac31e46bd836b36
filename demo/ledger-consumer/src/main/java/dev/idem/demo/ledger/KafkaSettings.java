package dev.idem.demo.ledger;

import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerConfig;

/**
 * What both modes give their Kafka consumer. Static membership ({@code group.instance.id}) when the
 * HTTP port is fixed: a consumer restarted after a crash, on the same port, takes its partitions
 * back at once, instead of waiting for the group to time out the dead process's session. The port
 * makes the id unique on this machine (two processes cannot hold it) and stable across restarts.
 *
 * @param instanceId {@code group.instance.id}, or null for a dynamic member
 */
record KafkaSettings(String bootstrapServers, String topic, String group, String instanceId) {
    /** How long the group waits for a silent member before it gives its partitions to the others. */
    static final int SESSION_TIMEOUT_MS = 10_000;

    Map<String, Object> consumerConfig() {
        Map<String, Object> config = new HashMap<>();
        config.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        config.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        config.put(ConsumerConfig.CLIENT_ID_CONFIG, "ledger-consumer-" + group);
        config.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        // Offsets are committed by hand, after the database commit, in both modes.
        config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        config.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, SESSION_TIMEOUT_MS);
        config.put(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, SESSION_TIMEOUT_MS / 5);
        // A topic created after the consumer started is found within seconds, not the default 5 minutes.
        config.put(ConsumerConfig.METADATA_MAX_AGE_CONFIG, 5_000);
        if (instanceId != null) {
            config.put(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG, instanceId);
        }
        return config;
    }
}
