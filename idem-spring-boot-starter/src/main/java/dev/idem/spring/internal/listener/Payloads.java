package dev.idem.spring.internal.listener;

import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The bytes of a payload kept with a quarantined message: text as UTF-8, bytes as they are, anything else
 * not at all; and header values as text.
 */
public final class Payloads {
    private Payloads() {
    }

    /** {@code value}'s bytes, or none if it is neither text nor bytes. */
    public static byte[] bytes(Object value) {
        if (value instanceof byte[] bytes) {
            return bytes;
        }
        if (value instanceof CharSequence text) {
            return text.toString().getBytes(StandardCharsets.UTF_8);
        }
        return new byte[0];
    }

    /** Each header whose value has a text form ({@link #text}), in order. */
    public static Map<String, String> texts(Iterable<? extends Map.Entry<String, ?>> headers) {
        Map<String, String> texts = new LinkedHashMap<>();
        for (Map.Entry<String, ?> header : headers) {
            String text = text(header.getValue());
            if (text != null) {
                texts.put(header.getKey(), text);
            }
        }
        return texts;
    }

    /** A header value as text: bytes as UTF-8, else its string form; null for null or empty. */
    public static String text(Object value) {
        String text = value instanceof byte[] bytes ? new String(bytes, StandardCharsets.UTF_8) : value == null ? null : value.toString();
        return text == null || text.isEmpty() ? null : text;
    }
}
