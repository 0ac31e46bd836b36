package dev.idem.demo.ledger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** {@link Lag} against the real broker, and {@code KafkaBroker.createTopic}, which the tests rely on. */
@ExtendWith(TestBroker.class)
class LagIT {

    @Test
    void lagIsTheEndOffsetMinusTheCommittedOneSummedOverPartitionsAndTheEndOffsetWhereNoneIsCommitted() throws Exception {
        String suffix = CrashIT.suffix();
        String topic = "lag-" + suffix;
        String group = "lag-group-" + suffix;
        TestBroker.broker().createTopic(topic, 2);
        Events.send(List.of(onPartition(topic, 0, "a"), onPartition(topic, 0, "b"), onPartition(topic, 0, "c"),
                onPartition(topic, 1, "d"), onPartition(topic, 1, "e")));
        try (Lag lag = new Lag(TestBroker.broker().bootstrapServers(), topic, group)) {
            assertThat(lag.current()).as("a group that committed nothing").isEqualTo(5);

            try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, TestBroker.broker().bootstrapServers()))) {
                admin.alterConsumerGroupOffsets(group, Map.of(new TopicPartition(topic, 0), new OffsetAndMetadata(1)))
                        .all().get(30, TimeUnit.SECONDS);
            }
            assertThat(lag.current()).as("(3 - 1) on partition 0, 2 on partition 1 with no commit").isEqualTo(4);
        }
    }

    @Test
    void lagIsMinusOneForATopicThatDoesNotExist() {
        try (Lag lag = new Lag(TestBroker.broker().bootstrapServers(), "no-such-topic-" + CrashIT.suffix(), "g")) {
            assertThat(lag.current()).isEqualTo(Lag.UNKNOWN);
        }
    }

    @Test
    void createTopicIsHarmlessTwiceAndRefusesAnotherPartitionCount() {
        String topic = "twice-" + CrashIT.suffix();
        TestBroker.broker().createTopic(topic, 3);
        TestBroker.broker().createTopic(topic, 3);
        assertThatThrownBy(() -> TestBroker.broker().createTopic(topic, 2))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("exists with 3 partitions, not 2");
        assertThatThrownBy(() -> TestBroker.broker().createTopic("bad name", 1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> TestBroker.broker().createTopic("fine", 0)).isInstanceOf(IllegalArgumentException.class);
    }

    private static ProducerRecord<String, byte[]> onPartition(String topic, int partition, String key) {
        return new ProducerRecord<>(topic, partition, key, key.getBytes(StandardCharsets.UTF_8));
    }
}
