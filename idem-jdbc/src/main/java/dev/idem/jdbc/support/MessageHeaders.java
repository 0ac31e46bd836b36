package dev.idem.jdbc.support;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * A message's headers as readable text in one column (the inbox's quarantine and the outbox keep them
 * this way, see docs/schema.md): one {@code name=value} line per header, in order, with
 * {@code \\}, line breaks and (in names) {@code =} escaped by a backslash, so any text round-trips.
 */
public final class MessageHeaders {
    private MessageHeaders() {
    }

    /** An unmodifiable, ordered copy; names must be non-empty, values non-null. */
    public static Map<String, String> copyOf(Map<String, String> headers) {
        Objects.requireNonNull(headers, "headers are null (use Map.of())");
        Map<String, String> copy = new LinkedHashMap<>();
        headers.forEach((name, value) -> {
            if (name == null || name.isEmpty()) {
                throw new IllegalArgumentException("a header name is null or empty");
            }
            if (value == null) {
                throw new IllegalArgumentException("the value of header '" + name + "' is null");
            }
            copy.put(name, value);
        });
        return Collections.unmodifiableMap(copy);
    }

    /** The text to store for {@code headers}, which {@link #decode} reads back unchanged; null for no headers. */
    public static String encode(Map<String, String> headers) {
        if (headers.isEmpty()) {
            return null;
        }
        StringBuilder out = new StringBuilder();
        headers.forEach((name, value) -> {
            escape(out, name, true);
            out.append('=');
            escape(out, value, false);
            out.append('\n');
        });
        return out.toString();
    }

    /**
     * The headers {@link #encode} wrote, unmodifiable and in order; null or empty text is no headers.
     *
     * @throws IllegalStateException if the text is not what {@link #encode} writes
     */
    public static Map<String, String> decode(String text) {
        Map<String, String> headers = new LinkedHashMap<>();
        if (text == null || text.isEmpty()) {
            return Collections.unmodifiableMap(headers);
        }
        StringBuilder name = new StringBuilder();
        StringBuilder value = new StringBuilder();
        StringBuilder current = name;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '\\') {
                if (++i == text.length()) {
                    throw new IllegalStateException("stored headers are corrupt");
                }
                char e = text.charAt(i);
                current.append(e == 'n' ? '\n' : e == 'r' ? '\r' : e);
            } else if (c == '=' && current == name) {
                current = value;
            } else if (c == '\n') {
                if (current != value) {
                    throw new IllegalStateException("stored headers are corrupt");
                }
                headers.put(name.toString(), value.toString());
                name.setLength(0);
                value.setLength(0);
                current = name;
            } else {
                current.append(c);
            }
        }
        if (name.length() > 0 || current == value) {
            throw new IllegalStateException("stored headers are corrupt");
        }
        return Collections.unmodifiableMap(headers);
    }

    private static void escape(StringBuilder out, String text, boolean name) {
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            switch (c) {
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '=' -> out.append(name ? "\\=" : "=");
                default -> out.append(c);
            }
        }
    }
}
