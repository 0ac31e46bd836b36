package dev.idem.rabbitmq;

import com.rabbitmq.client.Delivery;

/**
 * Hooks for a {@link RabbitInboxConsumer}'s logs and metrics, beside the inbox's own
 * {@code InboxListener} (processed, duplicate, failed, quarantined). Every method defaults to doing
 * nothing; an exception thrown by a listener is logged and otherwise ignored.
 */
public interface RabbitConsumerListener {

    /**
     * A delivery was refused (rejected without requeue; dead-lettered if the queue has a dead-letter
     * exchange) because it has no usable message id. {@code reason} never quotes the payload.
     */
    default void refused(String queue, Delivery delivery, String reason) {
    }

    /**
     * The inbox's database failed while processing a batch: nothing was committed, and the batch was
     * returned to the queue (after the consumer's store-failure pause). The attempts were not counted,
     * so here the queue's delivery limit is the only bound.
     */
    default void storeFailed(String queue, int deliveries, RuntimeException failure) {
    }

    /**
     * The consumer stopped: {@code cause} is null after {@link RabbitInboxConsumer#close()}, else why
     * the channel went away for good (its unacknowledged deliveries go back to the queue).
     */
    default void stopped(String queue, Throwable cause) {
    }

    static RabbitConsumerListener noop() {
        return NoopRabbitConsumerListener.INSTANCE;
    }
}

final class NoopRabbitConsumerListener implements RabbitConsumerListener {
    static final NoopRabbitConsumerListener INSTANCE = new NoopRabbitConsumerListener();

    private NoopRabbitConsumerListener() {
    }
}
