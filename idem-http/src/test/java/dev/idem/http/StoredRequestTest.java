package dev.idem.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class StoredRequestTest {
    private static final byte[] BODY = "{\"amount\":1200,\"note\":\"Zürich\"}".getBytes(StandardCharsets.UTF_8);
    private final StoredRequest request = StoredRequest.of("POST", "/payments/a%20b?x=1&y=%C3%BC",
            List.of(new StoredRequest.Header("Content-Type", "application/json"), new StoredRequest.Header("Accept", "a/b"),
                    new StoredRequest.Header("accept", "c/d")), BODY);

    @Test
    @DisplayName("the codec gives back the same request: method, target, headers in order with repeats, body")
    void roundTrip() {
        StoredRequest back = StoredRequest.CODEC.decode(StoredRequest.CODEC.encode(request));
        assertThat(back).isEqualTo(request);
        assertThat(back.path()).isEqualTo("/payments/a%20b");
        assertThat(back.query()).hasValue("x=1&y=%C3%BC");
        assertThat(back.headers("ACCEPT")).containsExactly("a/b", "c/d");
        assertThat(back.body()).isEqualTo(BODY);
        assertThat(StoredRequest.of("PUT", "/", List.of(), new byte[0]).query()).isEmpty();
    }

    @Test
    @DisplayName("of refuses what breaks a rule, naming the part and never its value")
    void ofValidates() {
        assertThatThrownBy(() -> StoredRequest.of("PO ST", "/p", List.of(), BODY)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("method");
        assertThatThrownBy(() -> StoredRequest.of("POST", "secret-path", List.of(), BODY)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("must start with '/'").hasMessageNotContaining("secret");
        assertThatThrownBy(() -> new StoredRequest.Header("X-Note", "secret\r\nInjected: 1"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("control character").hasMessageNotContaining("secret");
        assertThatThrownBy(() -> StoredRequest.of("POST", "/p", List.of(), new byte[StoredRequest.MAX_BODY_BYTES + 1]))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("more than " + StoredRequest.MAX_BODY_BYTES);
        assertThat(request.toString()).doesNotContain("payments").doesNotContain("1200");
    }

    @Test
    @DisplayName("decode refuses an unknown version, truncation, a bad length and trailing bytes, naming what is wrong")
    void decodeValidates() {
        byte[] good = StoredRequest.CODEC.encode(request);
        byte[] version = good.clone();
        version[0] = 9;
        assertThatThrownBy(() -> StoredRequest.CODEC.decode(version)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("unknown format version 9");
        assertThatThrownBy(() -> StoredRequest.CODEC.decode(new byte[0])).hasMessageContaining("empty");
        for (int cut : new int[] {1, 3, 8, good.length - 1}) {
            assertThatThrownBy(() -> StoredRequest.CODEC.decode(Arrays.copyOf(good, cut)))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("truncated");
        }
        byte[] longer = Arrays.copyOf(good, good.length + 2);
        assertThatThrownBy(() -> StoredRequest.CODEC.decode(longer)).hasMessageContaining("2 bytes after its body");
        byte[] negative = good.clone();
        negative[1] = (byte) 0xFF; // the method's length, now negative
        assertThatThrownBy(() -> StoredRequest.CODEC.decode(negative)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("method length is").hasMessageContaining("outside");
        byte[] notUtf8 = good.clone();
        notUtf8[5] = (byte) 0xC3; // first byte of "POST" → a lone lead byte
        notUtf8[6] = (byte) 0x28;
        assertThatThrownBy(() -> StoredRequest.CODEC.decode(notUtf8)).hasMessageContaining("method is not UTF-8");
    }
}
