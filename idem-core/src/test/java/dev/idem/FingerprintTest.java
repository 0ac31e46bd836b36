package dev.idem;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.NullSource;
import org.junit.jupiter.params.provider.ValueSource;

class FingerprintTest {

    private static Fingerprint request(String method, String route, String body) {
        return Fingerprint.builder().part("method", method).part("route", route).part("body", body).build();
    }

    @Test
    @DisplayName("the same parts give the same fingerprint every time")
    void deterministic() {
        assertThat(request("POST", "/payments", "{\"amount\":100}"))
                .isEqualTo(request("POST", "/payments", "{\"amount\":100}"))
                .hasSameHashCodeAs(request("POST", "/payments", "{\"amount\":100}"));
        assertThat(Fingerprint.none()).isEqualTo(Fingerprint.none());
    }

    @Test
    @DisplayName("v1 is SHA-256 over the version, names and values, each with a 4-byte length prefix")
    void v1Encoding() throws Exception {
        // Stored fingerprints are compared with new ones: if this encoding changed, every retry of a
        // key stored before the change would become a Mismatch.
        MessageDigest sha = MessageDigest.getInstance("SHA-256");
        for (String piece : List.of("v1", "method", "POST", "body", "{}")) {
            byte[] bytes = piece.getBytes(StandardCharsets.UTF_8);
            sha.update(ByteBuffer.allocate(4).putInt(bytes.length).array());
            sha.update(bytes);
        }
        String expected = "v1:" + HexFormat.of().formatHex(sha.digest());

        assertThat(Fingerprint.builder().part("method", "POST").part("body", "{}").build().value()).isEqualTo(expected);
    }

    @Test
    @DisplayName("changing any part's value changes the fingerprint")
    void anyValueChange() {
        Fingerprint base = request("POST", "/payments", "{\"amount\":100}");
        assertThat(request("PUT", "/payments", "{\"amount\":100}")).isNotEqualTo(base);
        assertThat(request("POST", "/refunds", "{\"amount\":100}")).isNotEqualTo(base);
        assertThat(request("POST", "/payments", "{\"amount\":101}")).isNotEqualTo(base);
        assertThat(request("POST", "/payments", "")).isNotEqualTo(base);
    }

    @Test
    @DisplayName("a part's name is part of the identity")
    void nameChange() {
        assertThat(Fingerprint.builder().part("body", "x").build())
                .isNotEqualTo(Fingerprint.builder().part("query", "x").build());
    }

    @Test
    @DisplayName("parts are ordered: swapping two changes the fingerprint")
    void order() {
        Fingerprint ab = Fingerprint.builder().part("a", "1").part("b", "2").build();
        Fingerprint ba = Fingerprint.builder().part("b", "2").part("a", "1").build();
        assertThat(ab).isNotEqualTo(ba);
    }

    @Test
    @DisplayName("moving bytes across the name/value boundary changes the fingerprint")
    void nameValueBoundary() {
        assertThat(Fingerprint.builder().part("a", "bc").build())
                .isNotEqualTo(Fingerprint.builder().part("ab", "c").build());
    }

    @Test
    @DisplayName("moving bytes from one part to the next changes the fingerprint")
    void partBoundary() {
        assertThat(Fingerprint.builder().part("p", "ab").part("q", "c").build())
                .isNotEqualTo(Fingerprint.builder().part("p", "a").part("q", "bc").build());
    }

    @Test
    @DisplayName("two parts differ from one part holding their concatenation")
    void twoPartsVersusOne() {
        Fingerprint two = Fingerprint.builder().part("a", "x").part("b", "y").build();
        Fingerprint oneConcatenated = Fingerprint.builder().part("a", "xby").build();
        Fingerprint oneNamed = Fingerprint.builder().part("axby", "").build();
        assertThat(Set.of(two, oneConcatenated, oneNamed)).hasSize(3);
    }

    @Test
    @DisplayName("an empty part still counts: adding one changes the fingerprint")
    void emptyPartCounts() {
        assertThat(Fingerprint.builder().part("a", "").build()).isNotEqualTo(Fingerprint.none());
        assertThat(Fingerprint.builder().part("a", "").part("a", "").build())
                .isNotEqualTo(Fingerprint.builder().part("a", "").build());
    }

    @Test
    @DisplayName("a text value hashes as its UTF-8 bytes")
    void textIsUtf8() {
        assertThat(Fingerprint.builder().part("body", "é").build())
                .isEqualTo(Fingerprint.builder().part("body", "é".getBytes(StandardCharsets.UTF_8)).build());
    }

    @Test
    @DisplayName("the text form is v1: and 64 lowercase hex digits")
    void textForm() {
        List<Fingerprint> samples = List.of(Fingerprint.none(), request("POST", "/payments", "{}"),
                Fingerprint.builder().part("bytes", new byte[] {0, (byte) 0xFF}).build());
        for (Fingerprint fingerprint : samples) {
            assertThat(fingerprint.value()).matches("v1:[0-9a-f]{64}");
            assertThat(fingerprint.toString()).isEqualTo(fingerprint.value());
        }
        assertThat(samples.stream().map(Fingerprint::value).collect(Collectors.toSet())).hasSize(3);
    }

    @Test
    @DisplayName("parse reads back the text form")
    void parseRoundTrip() {
        Fingerprint original = request("POST", "/payments", "{}");
        Fingerprint parsed = Fingerprint.parse(original.value());
        assertThat(parsed).isEqualTo(original).hasSameHashCodeAs(original);
        assertThat(parsed.value()).isEqualTo(original.value());
    }

    @Test
    @DisplayName("parse accepts a later version, so stores can hold fingerprints from a newer release")
    void parseLaterVersion() {
        String v2 = "v2:" + "a".repeat(64);
        assertThat(Fingerprint.parse(v2).value()).isEqualTo(v2);
    }

    @ParameterizedTest
    @NullSource
    @ValueSource(strings = {
            "", "garbage", "v1:", "v1", "v1:abc",
            "v1:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcde",   // 63 digits
            "v1:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef0", // 65 digits
            "v1:0123456789ABCDEF0123456789ABCDEF0123456789ABCDEF0123456789ABCDEF",  // upper case
            "v1:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdeg",  // not hex
            "V1:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
            "vx:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
            " v1:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
            "v1:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef\n"})
    @DisplayName("parse rejects anything but the text form")
    void parseRejectsGarbage(String text) {
        assertThatThrownBy(() -> Fingerprint.parse(text))
                .isInstanceOf(InvalidKeyException.class)
                .hasMessageContaining("fingerprint");
    }

    @Test
    @DisplayName("a builder builds once; adding parts or building again afterwards fails")
    void builderSingleUse() {
        Fingerprint.Builder builder = Fingerprint.builder().part("a", "1");
        Fingerprint built = builder.build();

        assertThatThrownBy(builder::build).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> builder.part("b", "2")).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> builder.part("b", new byte[] {2})).isInstanceOf(IllegalStateException.class);
        assertThat(built).isEqualTo(Fingerprint.builder().part("a", "1").build());
    }

    @Test
    @DisplayName("null names and values are rejected, naming the part")
    void nulls() {
        assertThatThrownBy(() -> Fingerprint.builder().part("body", (String) null))
                .isInstanceOf(NullPointerException.class)
                .hasMessageContaining("body");
        assertThatThrownBy(() -> Fingerprint.builder().part("body", (byte[]) null))
                .isInstanceOf(NullPointerException.class)
                .hasMessageContaining("body");
        assertThatThrownBy(() -> Fingerprint.builder().part(null, "x")).isInstanceOf(NullPointerException.class);
    }

    @Test
    @DisplayName("builders made at once on many threads each hash their own parts, long parts' length prefixes included")
    void concurrentBuildersWithLongParts() throws Exception {
        // Every builder starts from a copy of one digest that already took the version part: the
        // copies must not share state, and the length prefix must be big-endian past one byte.
        List<Integer> lengths = List.of(0, 1, 255, 256, 65_536, 70_001);
        List<java.util.concurrent.Callable<Boolean>> tasks = new java.util.ArrayList<>();
        for (int t = 0; t < 64; t++) {
            int length = lengths.get(t % lengths.size());
            byte[] body = new byte[length];
            java.util.Arrays.fill(body, (byte) ('a' + t % 26));
            tasks.add(() -> Fingerprint.builder().part("method", "POST").part("body", body).build().value().equals(reference(body)));
        }
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(8);
        try {
            for (java.util.concurrent.Future<Boolean> result : pool.invokeAll(tasks)) {
                assertThat(result.get()).isTrue();
            }
        } finally {
            pool.shutdown();
        }
    }

    /** v1 computed the long way: a fresh digest, ByteBuffer length prefixes. */
    private static String reference(byte[] body) throws Exception {
        MessageDigest sha = MessageDigest.getInstance("SHA-256");
        for (byte[] piece : List.of("v1".getBytes(StandardCharsets.UTF_8), "method".getBytes(StandardCharsets.UTF_8),
                "POST".getBytes(StandardCharsets.UTF_8), "body".getBytes(StandardCharsets.UTF_8), body)) {
            sha.update(ByteBuffer.allocate(4).putInt(piece.length).array());
            sha.update(piece);
        }
        return "v1:" + HexFormat.of().formatHex(sha.digest());
    }
}
