package dev.idem.jdbc.support;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class MessageHeadersTest {

    @Test
    @DisplayName("any names and values round-trip in order: backslashes, line breaks, '=' in names and values, unicode")
    void roundTrip() {
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put("content-type", "application/json");
        headers.put("a=b", "c=d");
        headers.put("multi\nline\r", "x\\ny\\\\z\n");
        headers.put("ünï", "");
        headers.put("\\", "=");

        String text = MessageHeaders.encode(headers);

        assertThat(text.split("\n")).hasSize(5);
        assertThat(MessageHeaders.decode(text)).containsExactlyEntriesOf(headers);
    }

    @Test
    @DisplayName("no headers are stored as null and read back as empty")
    void empty() {
        assertThat(MessageHeaders.encode(Map.of())).isNull();
        assertThat(MessageHeaders.decode(null)).isEmpty();
        assertThat(MessageHeaders.decode("")).isEmpty();
    }

    @Test
    @DisplayName("corrupt text is reported, never half-read")
    void corrupt() {
        assertThatThrownBy(() -> MessageHeaders.decode("no-equals\n")).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> MessageHeaders.decode("a=b")).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> MessageHeaders.decode("a=b\\")).isInstanceOf(IllegalStateException.class);
    }
}
