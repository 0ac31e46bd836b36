package dev.idem.spring;

import dev.idem.inbox.QuarantineError;
import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * {@code idem.inbox.*}: the inbox that {@link IdempotentListener} methods claim their messages in,
 * built on the application's {@code DataSource} unless the application defines an {@code Inbox} bean.
 * Its tables are created with {@code idem.schema.initialize}.
 */
@ConfigurationProperties("idem.inbox")
public class IdemInboxProperties {
    /**
     * Failed deliveries of one message before it is moved to the quarantine (and acknowledged); a
     * listener method's failure below it is rethrown to the container, which redelivers it also past
     * its own retry limit.
     */
    private int maxAttempts = 5;

    /**
     * How long a processed message id is remembered; must outlive the broker's redelivery horizon
     * (Kafka: how far consumers may rewind; RabbitMQ: how long a message may stay unacknowledged).
     */
    private Duration retention = Duration.ofDays(7);

    /**
     * What the quarantine records of the failure that quarantined a message, beside its class name:
     * 'class-name' (the default) records nothing more, since an exception's message can quote payload
     * or database data such as a card number; 'class-and-message' records the message too, cut to
     * 2,000 characters.
     */
    private QuarantineError quarantineError = QuarantineError.CLASS_NAME;

    private final Partitions partitions = new Partitions();

    public int getMaxAttempts() {
        return maxAttempts;
    }

    public void setMaxAttempts(int maxAttempts) {
        this.maxAttempts = maxAttempts;
    }

    public Duration getRetention() {
        return retention;
    }

    public void setRetention(Duration retention) {
        this.retention = retention;
    }

    public QuarantineError getQuarantineError() {
        return quarantineError;
    }

    public void setQuarantineError(QuarantineError quarantineError) {
        this.quarantineError = quarantineError;
    }

    public Partitions getPartitions() {
        return partitions;
    }

    /**
     * Retention by partition for the inbox table (PostgreSQL, MariaDB): range-partitioned by expiry,
     * purged by the inbox sweeper dropping partitions past retention instead of deleting rows.
     */
    public static class Partitions {
        /**
         * Span of expiry times per partition of the inbox table, e.g. 1d; 0 (the default): one
         * unpartitioned table, purged row by row. Partitions are made ahead to now plus the retention
         * plus this width; a processed message waits up to this long past its retention for its
         * partition's drop.
         */
        private Duration width = Duration.ZERO;

        public Duration getWidth() {
            return width;
        }

        public void setWidth(Duration width) {
            this.width = width;
        }
    }
}
