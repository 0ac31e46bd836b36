package dev.idem.kafka;

import dev.idem.inbox.InboxMessage;
import dev.idem.inbox.consumer.MessageIdExtractor;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Objects;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;

/**
 * Where a Kafka record's message id is found. If an extractor throws or gives an invalid id (a header
 * that is not UTF-8 included), the record counts as a failed attempt under its
 * {@linkplain #coordinates() coordinates} and is quarantined after the inbox's maximum attempts (a
 * partition cannot skip a record otherwise).
 */
public final class KafkaMessageIds {
    private KafkaMessageIds() {
    }

    /**
     * The default: the UTF-8 value of the {@code message-id} header that {@link KafkaOutboxPublisher}
     * writes (the last one if there are several), else the record's {@linkplain #coordinates() coordinates}.
     */
    public static MessageIdExtractor<ConsumerRecord<?, ?>> standard() {
        return headerOrCoordinates(KafkaHeaders.MESSAGE_ID);
    }

    /**
     * The UTF-8 value of {@code header} if the record has it (not null, not empty), else its
     * coordinates. A value that is not valid UTF-8 is refused (the extractor throws), never decoded
     * with replacement characters.
     */
    public static MessageIdExtractor<ConsumerRecord<?, ?>> headerOrCoordinates(String header) {
        Objects.requireNonNull(header, "header is null");
        if (header.isEmpty()) {
            throw new IllegalArgumentException("header name is empty");
        }
        return record -> {
            Header h = record.headers().lastHeader(header);
            if (h != null && h.value() != null && h.value().length > 0) {
                return utf8(header, h.value());
            }
            return coordinatesOf(record);
        };
    }

    /**
     * Decodes strictly: bytes that are not UTF-8 are refused, not replaced by U+FFFD, which would
     * turn different ids into one and drop the second message as a duplicate of the first.
     */
    private static String utf8(String header, byte[] value) {
        try {
            return StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(value))
                    .toString();
        } catch (CharacterCodingException e) {
            throw new IllegalArgumentException("the " + header + " header is not valid UTF-8; a message id must be UTF-8 text");
        }
    }

    /**
     * {@code <topic>-<partition>-<offset>}: unique per record, stable across redeliveries of that
     * record (a consumer crash, a rebalance, a rewind), but a producer that retries a send writes a new
     * record with new coordinates. Where producers may retry, give messages an id header (the outbox does).
     */
    public static MessageIdExtractor<ConsumerRecord<?, ?>> coordinates() {
        return KafkaMessageIds::coordinatesOf;
    }

    /** {@code <topic>-<partition>-<offset>} of {@code record}. */
    public static String coordinatesOf(ConsumerRecord<?, ?> record) {
        return record.topic() + "-" + record.partition() + "-" + record.offset();
    }

    /**
     * The id a record is counted under when its extractor gives none the inbox accepts: its coordinates,
     * the topic hashed where a very long topic name would make them longer than 255 characters.
     */
    static String fallbackId(ConsumerRecord<?, ?> r) {
        String id = coordinatesOf(r);
        if (id.length() <= 255) {
            return id;
        }
        try {
            byte[] hash = MessageDigest.getInstance("SHA-256").digest(r.topic().getBytes(StandardCharsets.UTF_8));
            StringBuilder hex = new StringBuilder("sha256:");
            for (byte b : hash) {
                hex.append(String.format("%02x", b));
            }
            return hex + "-" + r.partition() + "-" + r.offset();
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing", e);
        }
    }

    /** {@code extractor}'s id of the record if the inbox accepts it ({@link InboxMessage#checkId}), else its {@link #fallbackId}. */
    static String idOrFallback(MessageIdExtractor<? super ConsumerRecord<?, ?>> extractor, ConsumerRecord<?, ?> record) {
        try {
            return InboxMessage.checkId(extractor.messageId(record));
        } catch (RuntimeException unusable) {
            return fallbackId(record);
        }
    }
}
