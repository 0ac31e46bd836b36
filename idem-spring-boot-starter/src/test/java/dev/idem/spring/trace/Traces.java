package dev.idem.spring.trace;

import static org.assertj.core.api.Assertions.assertThat;

import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.data.EventData;
import io.opentelemetry.sdk.trace.data.SpanData;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;

/** What the trace tests share: a client's own trace context, the exported spans, waiting. */
final class Traces {
    private static final Duration WITHIN = Duration.ofSeconds(90);

    private Traces() {
    }

    /** A client's own W3C trace context: a new trace id and span id, sampled. */
    record Traceparent(String traceId, String spanId) {
        static Traceparent random() {
            HexFormat hex = HexFormat.of();
            return new Traceparent(hex.formatHex(bytes(16)), hex.formatHex(bytes(8)));
        }

        private static byte[] bytes(int n) {
            byte[] bytes = new byte[n];
            ThreadLocalRandom.current().nextBytes(bytes);
            return bytes;
        }

        String header() {
            return "00-" + traceId + "-" + spanId + "-01";
        }
    }

    static List<SpanData> find(InMemorySpanExporter exporter, Predicate<SpanData> which) {
        return exporter.getFinishedSpanItems().stream().filter(which).toList();
    }

    /** The one span {@code which} picks. */
    static SpanData only(List<SpanData> spans, Predicate<SpanData> which) {
        List<SpanData> found = spans.stream().filter(which).toList();
        assertThat(found).hasSize(1);
        return found.get(0);
    }

    /** Every attribute value of the span and of its events, as text. */
    static List<String> attributeValues(SpanData span) {
        List<String> values = new ArrayList<>();
        span.getAttributes().forEach((AttributeKey<?> k, Object v) -> values.add(String.valueOf(v)));
        for (EventData event : span.getEvents()) {
            event.getAttributes().forEach((AttributeKey<?> k, Object v) -> values.add(String.valueOf(v)));
        }
        return values;
    }

    static void awaitUntil(BooleanSupplier condition, String what) throws InterruptedException {
        Instant deadline = Instant.now().plus(WITHIN);
        while (!condition.getAsBoolean()) {
            if (Instant.now().isAfter(deadline)) {
                throw new AssertionError("timed out waiting for " + what);
            }
            Thread.sleep(20);
        }
    }
}
