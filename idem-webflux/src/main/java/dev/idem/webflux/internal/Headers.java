package dev.idem.webflux.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.springframework.http.HttpHeaders;

/**
 * Reads and edits of {@link HttpHeaders} through the methods Spring 6.2 and Spring 7 share, so one
 * jar runs on both Boot lines: {@code HttpHeaders} stopped being a {@code MultiValueMap} in 7, and
 * {@code get}, {@code getOrEmpty}, {@code remove} changed their signatures ({@code copyOf} is new),
 * which a jar compiled against one line does not find on the other.
 */
public final class Headers {
    private Headers() {
    }

    /** Every value of the header {@code name} (any case), in order; empty without one. */
    public static List<String> values(HttpHeaders headers, String name) {
        List<String> values = new ArrayList<>();
        for (Map.Entry<String, List<String>> header : headers.headerSet()) {
            if (header.getKey().equalsIgnoreCase(name)) {
                values.addAll(header.getValue());
            }
        }
        return values;
    }

    /** A mutable copy. */
    public static HttpHeaders copy(HttpHeaders headers) {
        HttpHeaders copy = new HttpHeaders();
        headers.forEach((name, values) -> copy.put(name, new ArrayList<>(values)));
        return copy;
    }

    /** Removes the header {@code name} (any case), if set. */
    public static void remove(HttpHeaders headers, String name) {
        if (values(headers, name).isEmpty()) {
            return;
        }
        HttpHeaders kept = new HttpHeaders();
        headers.forEach((header, values) -> {
            if (!header.equalsIgnoreCase(name)) {
                kept.put(header, new ArrayList<>(values));
            }
        });
        headers.clear();
        kept.forEach(headers::put);
    }
}
