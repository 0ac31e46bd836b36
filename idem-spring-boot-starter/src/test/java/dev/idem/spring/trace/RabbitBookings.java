package dev.idem.spring.trace;

import dev.idem.spring.IdempotentListener;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.springframework.amqp.core.Message;
import org.springframework.amqp.rabbit.annotation.RabbitListener;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.stereotype.Component;

/** Books each message of the queue once; fails for a {@code poison} body. Remembers the span each call ran in. */
@Component
@ConditionalOnProperty("trace.queue")
public class RabbitBookings {
    static final List<SpanContext> SPANS = new CopyOnWriteArrayList<>();

    @RabbitListener(queues = "${trace.queue}")
    @IdempotentListener(consumer = "trace-bookings")
    public void on(Message message) {
        SPANS.add(Span.current().getSpanContext());
        if (new String(message.getBody(), StandardCharsets.UTF_8).contains("poison")) {
            throw new IllegalStateException("cannot book this payment");
        }
    }
}
