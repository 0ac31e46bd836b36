package dev.idem.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.inbox.Inbox;
import dev.idem.inbox.InboxMessage;
import dev.idem.testing.RealServices;
import dev.idem.testing.TestDatabase;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** Settings are validated where they are set, naming the bad value; message ids and quarantine payloads from records. No broker needed. */
class KafkaSettingsTest {
    private TestDatabase db;
    private Inbox inbox;

    @BeforeEach
    void open() {
        db = RealServices.sqlite();
        inbox = Inbox.builder(db.dataSource()).build();
    }

    @AfterEach
    void close() {
        db.close();
    }

    private IdempotentKafkaConsumer.Builder<String, String> builder() {
        return IdempotentKafkaConsumer.<String, String>builder(inbox);
    }

    private static Map<String, Object> config() {
        Map<String, Object> config = new HashMap<>();
        config.put("bootstrap.servers", "127.0.0.1:1");
        config.put("group.id", "ledger");
        config.put("key.deserializer", StringDeserializer.class);
        config.put("value.deserializer", StringDeserializer.class);
        return config;
    }

    @Test
    @DisplayName("the consumer config must not auto-commit, and needs a group id and bootstrap servers")
    void consumerConfig() {
        Map<String, Object> autoCommit = config();
        autoCommit.put("enable.auto.commit", "true");
        assertThatThrownBy(() -> builder().consumerConfig(autoCommit)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("enable.auto.commit must be false").hasMessageContaining("true");
        Map<String, Object> noGroup = config();
        noGroup.remove("group.id");
        assertThatThrownBy(() -> builder().consumerConfig(noGroup)).hasMessageContaining("group.id");
        Map<String, Object> noServers = config();
        noServers.remove("bootstrap.servers");
        assertThatThrownBy(() -> builder().consumerConfig(noServers)).hasMessageContaining("bootstrap.servers");
        Map<String, Object> off = config();
        off.put("enable.auto.commit", false);
        assertThat(builder().consumerConfig(off).topics("t").handler((c, r) -> { }).build().consumerName()).isEqualTo("ledger");
    }

    @Test
    @DisplayName("build() names what is missing or contradictory")
    void buildNamesWhatIsMissing() {
        assertThatThrownBy(() -> builder().consumerConfig(config()).topics("t").build()).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("handler");
        assertThatThrownBy(() -> builder().consumerConfig(config()).handler((c, r) -> { }).build()).hasMessageContaining("topic");
        assertThatThrownBy(() -> builder().topics("t").handler((c, r) -> { }).build()).hasMessageContaining("consumer config or a consumer factory");
        assertThatThrownBy(() -> builder().consumer(() -> null).deserializers(new StringDeserializer(), new StringDeserializer())
                .topics("t").handler((c, r) -> { }).build()).hasMessageContaining("deserializers are only used with a consumer config");
        Map<String, Object> noDeserializers = config();
        noDeserializers.remove("value.deserializer");
        assertThatThrownBy(() -> builder().consumerConfig(noDeserializers).topics("t").handler((c, r) -> { }).build())
                .hasMessageContaining("value.deserializer");
        Map<String, Object> spacedGroup = config();
        spacedGroup.put("group.id", "ledger consumers");
        assertThatThrownBy(() -> builder().consumerConfig(spacedGroup).topics("t").handler((c, r) -> { }).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("set consumerName");
        assertThat(builder().consumerConfig(spacedGroup).consumerName("ledger").topics("t").handler((c, r) -> { }).build().consumerName())
                .isEqualTo("ledger");
    }

    @Test
    @DisplayName("each setter rejects a bad value and names it")
    void settersValidate() {
        assertThatThrownBy(() -> builder().consumerName("with space")).hasMessageContaining("visible ASCII");
        assertThatThrownBy(() -> builder().consumerName("x".repeat(201))).hasMessageContaining("201 characters");
        assertThatThrownBy(() -> builder().topics()).hasMessageContaining("at least one topic");
        assertThatThrownBy(() -> builder().topics("ok", " ")).hasMessageContaining("blank");
        assertThatThrownBy(() -> builder().pollTimeout(Duration.ZERO)).hasMessageContaining("pollTimeout").hasMessageContaining("PT0S");
        assertThatThrownBy(() -> builder().retryBackoff(Duration.ofMinutes(2))).hasMessageContaining("retryBackoff").hasMessageContaining("PT2M");
        assertThatThrownBy(() -> builder().commitTimeout(Duration.ofMillis(-1))).hasMessageContaining("commitTimeout");
        assertThatThrownBy(() -> builder().closeTimeout(Duration.ofHours(1))).hasMessageContaining("closeTimeout");
        assertThatThrownBy(() -> IdempotentKafkaConsumer.builder(null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> builder().handler(null)).isInstanceOf(NullPointerException.class);
    }

    @Test
    @DisplayName("an instance runs once; closed before it ran, run() returns without touching Kafka")
    void runsOnce() {
        IdempotentKafkaConsumer<String, String> consumer = builder()
                .consumer(() -> new KafkaConsumer<>(config(), new StringDeserializer(), new StringDeserializer()))
                .topics("t").handler((c, r) -> { }).build();
        consumer.close();
        consumer.run();
        assertThat(consumer.failure()).isEmpty();
        assertThatThrownBy(consumer::run).isInstanceOf(IllegalStateException.class).hasMessageContaining("ran already");
    }

    @Test
    @DisplayName("message ids: the message-id header, else topic-partition-offset; very long topics are hashed into 255 characters")
    void messageIds() throws Exception {
        RecordHeaders headers = new RecordHeaders();
        headers.add(KafkaHeaders.MESSAGE_ID, "abc".getBytes(StandardCharsets.UTF_8));
        assertThat(KafkaMessageIds.standard().messageId(record("payments", headers, "v"))).isEqualTo("abc");
        assertThat(KafkaMessageIds.standard().messageId(record("payments", new RecordHeaders(), "v"))).isEqualTo("payments-3-42");
        RecordHeaders empty = new RecordHeaders();
        empty.add(KafkaHeaders.MESSAGE_ID, new byte[0]);
        assertThat(KafkaMessageIds.standard().messageId(record("payments", empty, "v"))).isEqualTo("payments-3-42");
        assertThat(KafkaMessageIds.coordinates().messageId(record("payments", headers, "v"))).isEqualTo("payments-3-42");
        RecordHeaders custom = new RecordHeaders();
        custom.add("event-id", "e-1".getBytes(StandardCharsets.UTF_8));
        assertThat(KafkaMessageIds.headerOrCoordinates("event-id").messageId(record("payments", custom, "v"))).isEqualTo("e-1");
        assertThatThrownBy(() -> KafkaMessageIds.headerOrCoordinates("")).isInstanceOf(IllegalArgumentException.class);

        String longTopic = "t".repeat(249);
        assertThat(KafkaMessageIds.fallbackId(record(longTopic, new RecordHeaders(), "v"))).hasSize(254).endsWith("-3-42");
        String id = KafkaMessageIds.fallbackId(new ConsumerRecord<>(longTopic, 1000, 9_000_000_000_000L, "k", "v"));
        assertThat(id).startsWith("sha256:").endsWith("-1000-9000000000000").hasSizeLessThanOrEqualTo(255);
        assertThat(invalidMessageId(id)).isNull();
        assertThat(invalidMessageId("")).contains("1-255");
        assertThat(invalidMessageId(null)).contains("null");
        assertThat(invalidMessageId("a\nb")).contains("control character at position 1");
        assertThat(invalidMessageId("a\uD800b")).contains("unpaired surrogate at position 1");
    }

    @Test
    @DisplayName("the quarantine keeps byte[], ByteBuffer and String values as they are, other values by toString()")
    void quarantinePayload() {
        assertThat(KafkaPollLoop.defaultPayload(record("t", new RecordHeaders(), "héllo")))
                .isEqualTo("héllo".getBytes(StandardCharsets.UTF_8));
        assertThat(KafkaPollLoop.defaultPayload(record("t", new RecordHeaders(), new byte[] {1, 2}))).containsExactly(1, 2);
        assertThat(KafkaPollLoop.defaultPayload(record("t", new RecordHeaders(), ByteBuffer.wrap(new byte[] {3})))).containsExactly(3);
        assertThat(KafkaPollLoop.defaultPayload(record("t", new RecordHeaders(), 42L))).isEqualTo("42".getBytes(StandardCharsets.UTF_8));
        assertThat(KafkaPollLoop.defaultPayload(record("t", new RecordHeaders(), null))).isEmpty();
    }

    @Test
    @DisplayName("the outbox publisher insists on idempotence and acks=all, and needs a topic")
    void publisherSettings() {
        assertThatThrownBy(() -> KafkaOutboxPublisher.builder(Map.of("bootstrap.servers", "x", "enable.idempotence", "false")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("enable.idempotence must be true");
        assertThatThrownBy(() -> KafkaOutboxPublisher.builder(Map.of("bootstrap.servers", "x", "acks", "1")))
                .hasMessageContaining("acks must be all").hasMessageContaining("1");
        assertThatThrownBy(() -> KafkaOutboxPublisher.builder(Map.of())).hasMessageContaining("bootstrap.servers");
        assertThatThrownBy(() -> KafkaOutboxPublisher.builder(Map.of("bootstrap.servers", "x")).build())
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("topic");
        assertThatThrownBy(() -> KafkaOutboxPublisher.builder(Map.of("bootstrap.servers", "x")).topic(" ")).hasMessageContaining("blank");
        assertThatThrownBy(() -> KafkaOutboxPublisher.builder(Map.of("bootstrap.servers", "x")).sendTimeout(Duration.ZERO))
                .hasMessageContaining("sendTimeout").hasMessageContaining("PT0S");
    }

    @Test
    @DisplayName("the offset store's table name is a checked SQL identifier")
    void offsetStoreTableName() {
        assertThatThrownBy(() -> KafkaOffsetStore.builder(db.dataSource()).tableName("Offsets; DROP TABLE x"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("Offsets; DROP TABLE x");
        assertThat(KafkaOffsetStore.builder(db.dataSource()).tableName("my_offsets").build().tableName()).isEqualTo("my_offsets");
    }

    private static <V> ConsumerRecord<String, V> record(String topic, RecordHeaders headers, V value) {
        return new ConsumerRecord<>(topic, 3, 42L, 0L, TimestampType.CREATE_TIME, -1, -1, "k", value, headers, Optional.empty());
    }

    /** Null if the inbox accepts {@code id} as a message id, else its reason. */
    private static String invalidMessageId(String id) {
        try {
            InboxMessage.checkId(id);
            return null;
        } catch (IllegalArgumentException invalid) {
            return invalid.getMessage();
        }
    }
}
