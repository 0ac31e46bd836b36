package dev.idem.demo.ledger;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/** The HTTP contract the lab relies on, duplicates from the producer's side, and values that are not events. */
@ExtendWith(TestBroker.class)
class LedgerHttpIT {
    private static final Duration TIMEOUT = Duration.ofSeconds(60);

    @TempDir
    Path dir;

    @Test
    void healthLedgerAndLagAnswerTheDocumentedJson() throws Exception {
        String suffix = CrashIT.suffix();
        String topic = topic(suffix);
        try (LedgerProcess consumer = start("inbox", topic, suffix)) {
            assertThat(consumer.get("/health").body()).isEqualTo("{\"status\":\"up\",\"mode\":\"inbox\"}");
            Events.send(List.of(Events.payment(topic, "pay_" + suffix + "-a", 1250, "msg-a-" + suffix),
                    Events.payment(topic, "pay_" + suffix + "-b", 990, "msg-b-" + suffix)));
            consumer.awaitNoLag(TIMEOUT);

            HttpResponse<String> ledger = consumer.get("/ledger");
            assertThat(ledger.statusCode()).isEqualTo(200);
            assertThat(ledger.headers().firstValue("Content-Type")).hasValue("application/json");
            assertThat(ledger.body()).isEqualTo("{\"count\":2,\"entries\":["
                    + "{\"entryId\":1,\"paymentId\":\"pay_" + suffix + "-a\",\"card\":\"card-pay_" + suffix + "-a\",\"amount\":1250,"
                    + "\"currency\":\"EUR\",\"messageId\":\"msg-a-" + suffix + "\"},"
                    + "{\"entryId\":2,\"paymentId\":\"pay_" + suffix + "-b\",\"card\":\"card-pay_" + suffix + "-b\",\"amount\":990,"
                    + "\"currency\":\"EUR\",\"messageId\":\"msg-b-" + suffix + "\"}]}");
            HttpResponse<String> lag = consumer.get("/lag");
            assertThat(lag.statusCode()).isEqualTo(200);
            assertThat(lag.body()).isEqualTo("{\"lag\":0}");
            assertThat(consumer.get("/nothing-here").statusCode()).isEqualTo(404);

            // SIGTERM: an orderly stop (the JVM reports the signal as 128 + 15).
            assertThat(consumer.stop()).isEqualTo(143);
            assertThat(consumer.output()).doesNotContain("closing failed").doesNotContain("Exception");
        }
    }

    @Test
    void aProducerRetryOfTheSameMessageIdIsWrittenOnceWithTheInbox() throws Exception {
        String suffix = CrashIT.suffix();
        String topic = topic(suffix);
        try (LedgerProcess consumer = start("inbox", topic, suffix)) {
            // A retry after a lost acknowledgement: the same event again, under the same message id, as a new record.
            ProducerRecord<String, byte[]> event = Events.payment(topic, "pay_" + suffix, 4200, "msg-" + suffix);
            List<RecordMetadata> sent = Events.send(List.of(event, event));
            assertThat(sent).extracting(RecordMetadata::offset).containsExactly(0L, 1L);
            consumer.awaitNoLag(TIMEOUT);

            JsonNode ledger = consumer.json("/ledger");
            assertThat(ledger.get("count").intValue()).isEqualTo(1);
            assertThat(ledger.get("entries").get(0).get("paymentId").stringValue()).isEqualTo("pay_" + suffix);
            assertThat(ledger.get("entries").get(0).get("messageId").stringValue()).isEqualTo("msg-" + suffix);
        }
    }

    @Test
    void withTheInboxAValueThatIsNotAnEventIsQuarantinedAndTheRestWritten() throws Exception {
        String suffix = CrashIT.suffix();
        String topic = topic(suffix);
        try (LedgerProcess consumer = start("inbox", topic, suffix)) {
            Events.send(List.of(Events.record(topic, "k", "not json: secret-card-4111".getBytes(StandardCharsets.UTF_8), "msg-bad-" + suffix),
                    Events.payment(topic, "pay_" + suffix, 100, "msg-good-" + suffix)));
            // The bad record fails its attempts (the inbox's maximum, 1 s apart), is quarantined, and the partition moves on.
            consumer.awaitNoLag(TIMEOUT);

            JsonNode ledger = consumer.json("/ledger");
            assertThat(ledger.get("count").intValue()).isEqualTo(1);
            assertThat(ledger.get("entries").get(0).get("paymentId").stringValue()).isEqualTo("pay_" + suffix);
            assertThat(consumer.output()).contains("is in the quarantine").contains("the value is not well-formed JSON")
                    .doesNotContain("secret-card-4111");
        }
    }

    @Test
    void withoutTheInboxAValueThatIsNotAnEventIsLoggedAndSkipped() throws Exception {
        String suffix = CrashIT.suffix();
        String topic = topic(suffix);
        try (LedgerProcess consumer = start("no-inbox", topic, suffix)) {
            assertThat(consumer.get("/health").body()).isEqualTo("{\"status\":\"up\",\"mode\":\"no-inbox\"}");
            Events.send(List.of(Events.record(topic, "k", "{\"paymentId\":\"secret-pay\",\"amount\":1.5}".getBytes(StandardCharsets.UTF_8),
                            "msg-bad-" + suffix),
                    Events.payment(topic, "pay_" + suffix, 100, "msg-good-" + suffix)));
            consumer.awaitNoLag(TIMEOUT);

            JsonNode ledger = consumer.json("/ledger");
            assertThat(ledger.get("count").intValue()).isEqualTo(1);
            assertThat(consumer.output()).contains("skipped the record at " + topic + "-0@0: card is missing")
                    .doesNotContain("secret-pay");
        }
    }

    private static String topic(String suffix) {
        String topic = "payments-" + suffix;
        TestBroker.broker().createTopic(topic, 1);
        return topic;
    }

    private LedgerProcess start(String mode, String topic, String suffix) {
        List<String> args = new ArrayList<>(List.of("--kafka", TestBroker.broker().bootstrapServers(), "--topic", topic,
                "--group", "ledger-" + suffix, "--mode", mode, "--data-dir", dir.resolve("data").toString()));
        return LedgerProcess.startUp(LedgerProcess.freePort(), dir.resolve("consumer.log"), args);
    }
}
