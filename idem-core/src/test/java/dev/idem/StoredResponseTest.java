package dev.idem;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class StoredResponseTest {

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    @ParameterizedTest
    @ValueSource(ints = {100, 200, 201, 404, 422, 500, 599})
    @DisplayName("statuses 100-599 are accepted")
    void validStatus(int status) {
        assertThat(StoredResponse.of(status, new byte[0]).status()).isEqualTo(status);
    }

    @ParameterizedTest
    @ValueSource(ints = {-1, 0, 99, 600, 1000})
    @DisplayName("statuses outside 100-599 are rejected with the bad value in the message")
    void invalidStatus(int status) {
        assertThatThrownBy(() -> StoredResponse.of(status, new byte[0]))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(String.valueOf(status));
    }

    @Test
    @DisplayName("null headers or body are rejected")
    void nulls() {
        assertThatThrownBy(() -> StoredResponse.of(200, null, new byte[0])).isInstanceOf(NullPointerException.class)
                .hasMessageContaining("headers");
        assertThatThrownBy(() -> StoredResponse.of(200, Map.of(), null)).isInstanceOf(NullPointerException.class)
                .hasMessageContaining("body");
        assertThatThrownBy(() -> StoredResponse.of(200, null)).isInstanceOf(NullPointerException.class);
    }

    @Test
    @DisplayName("a null header name, a null value list or a null value is rejected")
    void nullHeaderParts() {
        Map<String, List<String>> nullName = new HashMap<>();
        nullName.put(null, List.of("v"));
        assertThatThrownBy(() -> StoredResponse.of(200, nullName, new byte[0])).isInstanceOf(IllegalArgumentException.class);

        Map<String, List<String>> nullList = new HashMap<>();
        nullList.put("X-A", null);
        assertThatThrownBy(() -> StoredResponse.of(200, nullList, new byte[0])).isInstanceOf(NullPointerException.class);

        List<String> withNull = new ArrayList<>();
        withNull.add(null);
        assertThatThrownBy(() -> StoredResponse.of(200, Map.of("X-A", withNull), new byte[0]))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "X Header", "X-Header:", "X:Evil", "X-Ünicode", "X\r\nInjected", "(comment)", "X/Y"})
    @DisplayName("header names that are not HTTP tokens are rejected")
    void invalidHeaderName(String name) {
        assertThatThrownBy(() -> StoredResponse.of(200, Map.of(name, List.of("v")), new byte[0]))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("header name");
    }

    @Test
    @DisplayName("every HTTP token character is allowed in a header name")
    void tokenCharacters() {
        String name = "Az09!#$%&'*+-.^_`|~";
        assertThat(StoredResponse.of(200, Map.of(name, List.of("v")), new byte[0]).headers()).containsKey(name);
    }

    @ParameterizedTest
    @ValueSource(strings = {"a\rb", "a\nb", "a\r\nSet-Cookie: x=y", "a\0b"})
    @DisplayName("header values with CR, LF or NUL are rejected, so a replay cannot smuggle a header")
    void invalidHeaderValue(String value) {
        assertThatThrownBy(() -> StoredResponse.of(200, Map.of("X-A", List.of("ok", value)), new byte[0]))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("CR, LF or NUL");
    }

    @Test
    @DisplayName("ordinary header values, including empty ones and tabs, are kept as given")
    void validHeaderValues() {
        StoredResponse response = StoredResponse.of(200, Map.of("X-A", List.of("", "a b\tc", "é")), new byte[0]);
        assertThat(response.headers().get("X-A")).containsExactly("", "a b\tc", "é");
    }

    @Test
    @DisplayName("headers keep their insertion order and the order of their values")
    void headerOrder() {
        Map<String, List<String>> headers = new LinkedHashMap<>();
        headers.put("Zeta", List.of("1"));
        headers.put("Alpha", List.of("b", "a"));
        headers.put("Mu", List.of());
        headers.put("Beta", List.of("2"));

        StoredResponse response = StoredResponse.of(200, headers, new byte[0]);

        assertThat(response.headers().keySet()).containsExactly("Zeta", "Alpha", "Mu", "Beta");
        assertThat(response.headers().get("Alpha")).containsExactly("b", "a");
    }

    @Test
    @DisplayName("headers are copied in and cannot be changed afterwards")
    void headersImmutable() {
        List<String> values = new ArrayList<>(List.of("1"));
        Map<String, List<String>> headers = new LinkedHashMap<>();
        headers.put("X-A", values);
        StoredResponse response = StoredResponse.of(200, headers, new byte[0]);

        values.add("2");
        headers.put("X-B", List.of("3"));

        assertThat(response.headers()).containsOnlyKeys("X-A");
        assertThat(response.headers().get("X-A")).containsExactly("1");
        assertThatThrownBy(() -> response.headers().put("X-C", List.of())).isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(() -> response.headers().get("X-A").add("4")).isInstanceOf(UnsupportedOperationException.class);
    }

    @Test
    @DisplayName("the body is copied in: changing the caller's array later does not change the response")
    void bodyCopiedIn() {
        byte[] body = bytes("hello");
        StoredResponse response = StoredResponse.of(200, body);

        body[0] = 'J';

        assertThat(response.body()).isEqualTo(bytes("hello"));
    }

    @Test
    @DisplayName("the body is copied out: changing a returned array does not change the response")
    void bodyCopiedOut() {
        StoredResponse response = StoredResponse.of(200, bytes("hello"));

        byte[] first = response.body();
        first[0] = 'J';

        assertThat(response.body()).isEqualTo(bytes("hello"));
        assertThat(response.body()).isNotSameAs(response.body());
    }

    @Test
    @DisplayName("empty and binary bodies are kept byte for byte")
    void binaryBody() {
        byte[] all = new byte[256];
        for (int i = 0; i < all.length; i++) {
            all[i] = (byte) i;
        }
        assertThat(StoredResponse.of(204, new byte[0]).body()).isEmpty();
        assertThat(StoredResponse.of(200, all).body()).isEqualTo(all);
        assertThat(StoredResponse.of(200, all).bodyLength()).isEqualTo(256);
    }

    @Test
    @DisplayName("equality compares status, headers and body bytes, not array identity")
    void equality() {
        Map<String, List<String>> headers = Map.of("Content-Type", List.of("text/plain"));
        StoredResponse a = StoredResponse.of(200, headers, bytes("body"));
        StoredResponse b = StoredResponse.of(200, headers, bytes("body"));

        assertThat(a).isEqualTo(b).hasSameHashCodeAs(b);
        assertThat(a).isNotEqualTo(StoredResponse.of(200, headers, bytes("bodY")));
        assertThat(a).isNotEqualTo(StoredResponse.of(201, headers, bytes("body")));
        assertThat(a).isNotEqualTo(StoredResponse.of(200, Map.of(), bytes("body")));
        assertThat(a).isNotEqualTo(StoredResponse.of(200, Map.of("Content-Type", List.of("text/html")), bytes("body")));
    }

    @Test
    @DisplayName("toString shows status, header names and body length, never the body or header values")
    void toStringHidesBody() {
        String secret = "card=4242424242424242";
        StoredResponse response = StoredResponse.of(201, Map.of("X-Token", List.of("header-secret")), bytes(secret));

        assertThat(response.toString())
                .contains("201")
                .contains("X-Token")
                .contains(String.valueOf(secret.length()))
                .doesNotContain(secret)
                .doesNotContain("4242")
                .doesNotContain(Arrays.toString(bytes(secret)))
                .doesNotContain("header-secret");
    }
}
