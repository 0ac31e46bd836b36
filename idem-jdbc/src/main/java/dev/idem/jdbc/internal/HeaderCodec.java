package dev.idem.jdbc.internal;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Headers as readable text, one {@code name: value} line each, in order. Safe because
 * {@link dev.idem.StoredResponse} forbids CR and LF in names and values.
 */
public final class HeaderCodec {
    private HeaderCodec() {
    }

    public static String encode(Map<String, List<String>> headers) {
        StringBuilder out = new StringBuilder();
        headers.forEach((name, values) -> values.forEach(value -> out.append(name).append(": ").append(value).append('\n')));
        return out.toString();
    }

    public static Map<String, List<String>> decode(String text) {
        Map<String, List<String>> headers = new LinkedHashMap<>();
        if (text == null || text.isEmpty()) {
            return headers;
        }
        for (String line : text.split("\n")) {
            int colon = line.indexOf(": ");
            if (colon <= 0) {
                throw new IllegalStateException("stored headers are corrupt");
            }
            headers.computeIfAbsent(line.substring(0, colon), n -> new ArrayList<>()).add(line.substring(colon + 2));
        }
        return headers;
    }
}
