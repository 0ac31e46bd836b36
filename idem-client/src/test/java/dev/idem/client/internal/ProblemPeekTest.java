package dev.idem.client.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ProblemPeekTest {

    private static String type(String json) {
        return ProblemPeek.parseType(json.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void readsTheTypeMemberOfAProblemBody() {
        assertThat(type("{\"type\":\"urn:idem:problem:key-in-use\",\"status\":409}")).isEqualTo("urn:idem:problem:key-in-use");
        assertThat(type("{ \"title\": \"x\",\n  \"type\" : \"https:\\/\\/example.com\\/busy\" }")).isEqualTo("https://example.com/busy");
        assertThat(type("{\"title\":\"no type\"}")).isNull();
        assertThat(type("not json at all")).isNull();
        assertThat(type("")).isNull();
    }

    @Test
    void statusRangesAreWrittenCompactly() {
        assertThat(RetryPolicy.ranges(Set.of(408, 425, 429, 500, 501, 502))).isEqualTo("[408, 425, 429, 500-502]");
        assertThat(RetryPolicy.ranges(Set.of(502, 503))).isEqualTo("[502, 503]");
        assertThat(RetryPolicy.ranges(Set.of())).isEqualTo("[]");
    }
}
