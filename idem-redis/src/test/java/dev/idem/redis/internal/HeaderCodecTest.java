package dev.idem.redis.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class HeaderCodecTest {

    @Test
    @DisplayName("names keep their order and values come back exactly, empty and non-ASCII ones included")
    void roundTrip() {
        Map<String, List<String>> headers = new LinkedHashMap<>();
        headers.put("Z-Last-Alphabetically", List.of("first"));
        headers.put("Location", List.of("/payments/42?x=é€"));
        headers.put("X-Multi", List.of("one", "", "three; q=\"x\""));
        headers.put("X-None", List.of());
        Map<String, List<String>> decoded = HeaderCodec.decode(HeaderCodec.encode(headers));
        assertThat(decoded).isEqualTo(headers);
        assertThat(List.copyOf(decoded.keySet())).containsExactlyElementsOf(headers.keySet());
        assertThat(HeaderCodec.decode(HeaderCodec.encode(Map.of()))).isEmpty();
        assertThat(HeaderCodec.decode(new byte[0])).isEmpty();
    }

    @Test
    @DisplayName("bytes this codec did not make are refused, not misread")
    void corruptBytesAreRefused() {
        byte[] good = HeaderCodec.encode(Map.of("A", List.of("b")));
        assertThatThrownBy(() -> HeaderCodec.decode(Arrays.copyOf(good, good.length - 1))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> HeaderCodec.decode(Arrays.copyOf(good, good.length + 1))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("after their end");
        assertThatThrownBy(() -> HeaderCodec.decode(new byte[] {(byte) 0xFF, 0, 0, 0})).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("impossible count");
    }
}
