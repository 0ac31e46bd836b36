package dev.idem.http.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class CanonicalJsonTest {

    private static String canonical(String json) {
        return new String(CanonicalJson.canonicalize(json.getBytes(StandardCharsets.UTF_8)), StandardCharsets.UTF_8);
    }

    @Test
    void sortsMembersAtEveryDepthAndDropsWhitespace() {
        assertThat(canonical(" { \"b\" : [ {\"z\":1, \"a\":2} ], \"a\" : {\"d\":null,\"c\":true} } "))
                .isEqualTo("{\"a\":{\"c\":true,\"d\":null},\"b\":[{\"a\":2,\"z\":1}]}");
    }

    @Test
    void keepsNumbersAsWritten() {
        assertThat(canonical("[1, 1.0, 1e2, 1E+2, -0, 0.10, 12345678901234567890123]"))
                .isEqualTo("[1,1.0,1e2,1E+2,-0,0.10,12345678901234567890123]");
    }

    @Test
    void reEscapesStringsOneWay() {
        assertThat(canonical("{\"\\u0061\":\"\\u00e9\\/x\"}")).isEqualTo(canonical("{\"a\":\"\u00e9/x\"}"));
    }

    @Test
    void writesTheSameBytesAsEarlierReleases() {
        // Stored fingerprints hash these bytes: any change in escaping or number text would turn every
        // retry of a key stored before it into a mismatch. Bytes as written by the release before the
        // parser and generator were made without the mapper.
        String in = "{\"z\":\"\\u00e9\\/x\\u0001\\t\\\"\\\\\\ud83d\\ude00\\u2028<>&'\","
                + "\"a\":[1.50,-0,1e400,true,false,null,{}],\"\\u00e9\":\"\u00e9\"}";
        byte[] out = CanonicalJson.canonicalize(in.getBytes(StandardCharsets.UTF_8));
        assertThat(java.util.HexFormat.of().formatHex(out)).isEqualTo("7b2261223a5b312e35302c2d302c31653430302c747275652c66616c73652c6e756c6c2c"
                + "7b7d5d2c227a223a22c3a92f785c75303030315c745c225c5cf09f9880e280a83c3e2627222c22c3a9223a22c3a9227d");
    }

    @Test
    void keepsDuplicateNamesInTheirOrder() {
        assertThat(canonical("{\"b\":0,\"a\":1,\"a\":2}")).isEqualTo("{\"a\":1,\"a\":2,\"b\":0}");
        assertThat(canonical("{\"a\":2,\"a\":1}")).isNotEqualTo(canonical("{\"a\":1,\"a\":2}"));
    }

    @Test
    void sortsByUtf16CodeUnits() {
        assertThat(canonical("{\"\u00e9\":1,\"z\":2,\"A\":3}")).isEqualTo("{\"A\":3,\"z\":2,\"\u00e9\":1}");
    }

    @Test
    void emptyOrBlankBodiesAreEmpty() {
        assertThat(canonical("")).isEmpty();
        assertThat(canonical(" \n\t")).isEmpty();
        assertThat(canonical("\"text\"")).isEqualTo("\"text\"");
    }

    @Test
    void malformedJsonIsReportedByPositionWithoutContent() {
        for (String malformed : new String[] {"{\"secret\":", "{\"secret\":1,}", "{\"secret\":1} {}", "[\"secret\"", "{'secret':1}",
                "secret", "{\"secret\":01}", "[" + "[".repeat(600) + "]".repeat(600) + "]"}) {
            assertThatThrownBy(() -> CanonicalJson.canonicalize(malformed.getBytes(StandardCharsets.UTF_8)))
                    .as(malformed.length() > 40 ? "deep nesting" : malformed)
                    .isInstanceOf(CanonicalJson.Malformed.class)
                    .hasMessageNotContaining("secret")
                    .hasMessageContaining("line 1");
        }
    }
}
