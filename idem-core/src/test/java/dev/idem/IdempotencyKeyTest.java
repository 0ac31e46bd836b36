package dev.idem;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class IdempotencyKeyTest {

    /** Distinctive, so a message that leaks it is easy to spot. */
    private static final String SECRET = "secret-key-value-123";

    @Test
    @DisplayName("a single visible character is a valid key")
    void oneCharacter() {
        assertThat(IdempotencyKey.of("x").value()).isEqualTo("x");
        assertThat(IdempotencyKey.parse("x").value()).isEqualTo("x");
    }

    @Test
    @DisplayName("255 characters is the longest valid key")
    void maxLength() {
        String longest = "k".repeat(IdempotencyKey.MAX_LENGTH);
        assertThat(IdempotencyKey.of(longest).value()).isEqualTo(longest);
        assertThat(IdempotencyKey.parse(longest).value()).isEqualTo(longest);
    }

    @Test
    @DisplayName("every visible ASCII character 0x21-0x7E is allowed")
    void allVisibleAscii() {
        StringBuilder all = new StringBuilder();
        for (char c = 0x21; c <= 0x7E; c++) {
            all.append(c);
        }
        assertThat(IdempotencyKey.of(all.toString()).value()).isEqualTo(all.toString());
    }

    @Test
    @DisplayName("a UUID, the usual client key, is valid")
    void uuid() {
        String uuid = "8e03978e-40d5-43e8-bc93-6894a57f9324";
        assertThat(IdempotencyKey.parse(uuid).value()).isEqualTo(uuid);
    }

    @Test
    @DisplayName("the sf-string form is accepted and its quotes are not part of the key")
    void sfStringIsUnquoted() {
        assertThat(IdempotencyKey.parse("\"abc\"")).isEqualTo(IdempotencyKey.of("abc"));
        assertThat(IdempotencyKey.parse("\"abc\"").value()).isEqualTo("abc");
    }

    @Test
    @DisplayName("the sf-string escapes \\\" and \\\\ stand for a quote and a backslash")
    void sfStringEscapes() {
        assertThat(IdempotencyKey.parse("\"a\\\"b\"").value()).isEqualTo("a\"b");
        assertThat(IdempotencyKey.parse("\"a\\\\b\"").value()).isEqualTo("a\\b");
        assertThat(IdempotencyKey.parse("\"\\\\\\\"\"").value()).isEqualTo("\\\"");
    }

    @Test
    @DisplayName("of() takes the value literally: quotes are part of a bare key")
    void ofDoesNotUnquote() {
        assertThat(IdempotencyKey.of("\"abc\"").value()).isEqualTo("\"abc\"");
    }

    @Test
    @DisplayName("a 255-character key still fits once its sf-string quotes are removed")
    void quotedMaxLength() {
        String longest = "q".repeat(IdempotencyKey.MAX_LENGTH);
        assertThat(IdempotencyKey.parse("\"" + longest + "\"").value()).isEqualTo(longest);
    }

    /** Invalid however they are passed in. */
    static Stream<Arguments> invalidBareKeys() {
        return Stream.of(
                Arguments.of("empty", ""),
                Arguments.of("256 characters", SECRET + "x".repeat(256 - SECRET.length())),
                Arguments.of("space", SECRET + " x"),
                Arguments.of("leading space", " " + SECRET),
                Arguments.of("tab", SECRET + "\tx"),
                Arguments.of("newline", SECRET + "\n"),
                Arguments.of("carriage return", SECRET + "\r"),
                Arguments.of("NUL", SECRET + "\0"),
                Arguments.of("DEL", SECRET + "\u007F"),
                Arguments.of("non-ASCII letter", SECRET + "é"),
                Arguments.of("emoji", SECRET + "\uD83D\uDE00"));
    }

    /** Invalid only as sf-strings: of() would take most of them as bare keys with quotes. */
    static Stream<Arguments> invalidSfStrings() {
        return Stream.of(
                Arguments.of("quoted empty", "\"\""),
                Arguments.of("256 characters inside quotes", "\"" + SECRET + "x".repeat(256 - SECRET.length()) + "\""),
                Arguments.of("space inside quotes", "\"" + SECRET + " x\""),
                Arguments.of("unterminated quote", "\"" + SECRET),
                Arguments.of("closing quote escaped", "\"" + SECRET + "\\\""),
                Arguments.of("bad escape", "\"" + SECRET + "\\n\""),
                Arguments.of("unescaped quote inside", "\"" + SECRET + "\"x\""));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource({"invalidBareKeys", "invalidSfStrings"})
    @DisplayName("parse rejects a malformed key without repeating it")
    void parseRejects(String why, String raw) {
        assertThatThrownBy(() -> IdempotencyKey.parse(raw))
                .isInstanceOf(InvalidKeyException.class)
                .hasMessageStartingWith("idempotency key is invalid")
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain(SECRET));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("invalidBareKeys")
    @DisplayName("of rejects a malformed key without repeating it")
    void ofRejects(String why, String raw) {
        assertThatThrownBy(() -> IdempotencyKey.of(raw))
                .isInstanceOf(InvalidKeyException.class)
                .hasMessageStartingWith("idempotency key is invalid")
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain(SECRET));
    }

    @Test
    @DisplayName("null is rejected as a missing key")
    void nullRejected() {
        assertThatThrownBy(() -> IdempotencyKey.parse(null))
                .isInstanceOf(InvalidKeyException.class)
                .hasMessageContaining("missing");
        assertThatThrownBy(() -> IdempotencyKey.of(null))
                .isInstanceOf(InvalidKeyException.class)
                .hasMessageContaining("missing");
    }

    @Test
    @DisplayName("the message says which rule was broken")
    void messageNamesTheRule() {
        assertThatThrownBy(() -> IdempotencyKey.parse("k".repeat(256))).hasMessageContaining("256").hasMessageContaining("255");
        assertThatThrownBy(() -> IdempotencyKey.parse("ab cd")).hasMessageContaining("space").hasMessageContaining("position 2");
        assertThatThrownBy(() -> IdempotencyKey.parse("ab\u0001")).hasMessageContaining("control character");
        assertThatThrownBy(() -> IdempotencyKey.parse("abé")).hasMessageContaining("non-ASCII");
    }

    @Test
    @DisplayName("an invalid key is an IdemException, so callers can catch idem's failures together")
    void invalidKeyIsIdemException() {
        assertThatThrownBy(() -> IdempotencyKey.parse("")).isInstanceOf(IdemException.class);
    }

    @Test
    @DisplayName("toString shows the length, never the value")
    void toStringIsRedacted() {
        IdempotencyKey key = IdempotencyKey.of(SECRET);
        assertThat(key.toString()).doesNotContain(SECRET).contains(String.valueOf(SECRET.length()));
    }

    @Test
    @DisplayName("keys are equal by value, however they were written")
    void equalsAndHashCode() {
        IdempotencyKey bare = IdempotencyKey.of("abc");
        IdempotencyKey quoted = IdempotencyKey.parse("\"abc\"");
        assertThat(bare).isEqualTo(quoted).hasSameHashCodeAs(quoted);
        assertThat(bare).isNotEqualTo(IdempotencyKey.of("abd"));
        assertThat(bare).isNotEqualTo(IdempotencyKey.of("ABC"));
        assertThat(bare).isNotEqualTo("abc");
    }
}
