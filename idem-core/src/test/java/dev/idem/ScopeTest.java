package dev.idem;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.spi.RecordKey;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.NullAndEmptySource;
import org.junit.jupiter.params.provider.ValueSource;

class ScopeTest {

    @Test
    @DisplayName("of joins principal and operation into the stored form, which parse reads back")
    void ofAndParse() {
        Scope scope = Scope.of("user-42", "POST /payments");
        assertThat(scope.value()).isEqualTo("user-42 POST /payments");
        assertThat(scope.toString()).isEqualTo("user-42 POST /payments");
        assertThat(Scope.parse(scope.value())).isEqualTo(scope).hasSameHashCodeAs(scope);
    }

    @Test
    @DisplayName("scopes are equal by value")
    void equality() {
        assertThat(Scope.of("alice", "POST /x")).isEqualTo(Scope.of("alice", "POST /x"));
        assertThat(Scope.of("alice", "POST /x")).isNotEqualTo(Scope.of("bob", "POST /x"));
        assertThat(Scope.of("alice", "POST /x")).isNotEqualTo(Scope.of("alice", "POST /y"));
        assertThat(Scope.of("alice", "POST /x")).isNotEqualTo("alice POST /x");
    }

    @ParameterizedTest
    @NullAndEmptySource
    @DisplayName("a missing principal is rejected")
    void missingPrincipal(String principal) {
        assertThatThrownBy(() -> Scope.of(principal, "POST /x"))
                .isInstanceOf(InvalidKeyException.class)
                .hasMessageContaining("scope principal");
    }

    @ParameterizedTest
    @NullAndEmptySource
    @DisplayName("a missing operation is rejected")
    void missingOperation(String operation) {
        assertThatThrownBy(() -> Scope.of("alice", operation))
                .isInstanceOf(InvalidKeyException.class)
                .hasMessageContaining("scope operation");
    }

    @ParameterizedTest
    @NullAndEmptySource
    @DisplayName("a missing stored form is rejected")
    void missingValue(String value) {
        assertThatThrownBy(() -> Scope.parse(value)).isInstanceOf(InvalidKeyException.class);
    }

    @ParameterizedTest
    @ValueSource(strings = {"\n", "\r", "\t", "\0", "\u007F", "\u0085"})
    @DisplayName("control characters are rejected in every part")
    void controlCharacters(String control) {
        assertThatThrownBy(() -> Scope.of("al" + control + "ice", "POST /x"))
                .isInstanceOf(InvalidKeyException.class)
                .hasMessageContaining("control character");
        assertThatThrownBy(() -> Scope.of("alice", "POST /x" + control))
                .isInstanceOf(InvalidKeyException.class)
                .hasMessageContaining("control character");
        assertThatThrownBy(() -> Scope.parse("alice POST /x" + control))
                .isInstanceOf(InvalidKeyException.class)
                .hasMessageContaining("control character");
    }

    @Test
    @DisplayName("512 characters is the longest scope")
    void maxLength() {
        String longest = "s".repeat(Scope.MAX_LENGTH);
        assertThat(Scope.parse(longest).value()).hasSize(Scope.MAX_LENGTH);
        assertThat(Scope.of("p", "o".repeat(Scope.MAX_LENGTH - 2)).value()).hasSize(Scope.MAX_LENGTH);
    }

    @Test
    @DisplayName("a scope over 512 characters is rejected, however it is made")
    void tooLong() {
        assertThatThrownBy(() -> Scope.parse("s".repeat(Scope.MAX_LENGTH + 1)))
                .isInstanceOf(InvalidKeyException.class)
                .hasMessageContaining("513");
        assertThatThrownBy(() -> Scope.of("p".repeat(300), "o".repeat(300)))
                .isInstanceOf(InvalidKeyException.class)
                .hasMessageContaining("601");
    }

    @Test
    @DisplayName("non-ASCII text is allowed: scopes are names, not wire tokens")
    void unicodeAllowed() {
        assertThat(Scope.of("usér-42", "POST /paiements").value()).isEqualTo("usér-42 POST /paiements");
    }

    @Test
    @DisplayName("regression: spaces in a principal are encoded, so two (principal, operation) pairs never share a scope")
    void principalWithSpaceCannotCollide() {
        // Before the fix, ("a b", "c") and ("a", "b c") both made the scope "a b c" and so shared records.
        assertThat(Scope.of("a b", "c")).isNotEqualTo(Scope.of("a", "b c"));
        assertThat(Scope.of("a%20b", "c")).isNotEqualTo(Scope.of("a b", "c"));
        assertThat(Scope.of("John Smith", "POST /payments").value()).isEqualTo("John%20Smith POST /payments");
        assertThat(Scope.of("alice", "POST /payments").value()).isEqualTo("alice POST /payments");
    }

    @Test
    @DisplayName("the same key under another principal or operation is another record")
    void sameKeyDifferentScope() {
        IdempotencyKey key = IdempotencyKey.of("shared");
        RecordKey alice = new RecordKey(Scope.of("alice", "POST /x"), key);
        RecordKey bob = new RecordKey(Scope.of("bob", "POST /x"), key);
        RecordKey aliceElsewhere = new RecordKey(Scope.of("alice", "POST /y"), key);

        assertThat(alice).isNotEqualTo(bob).isNotEqualTo(aliceElsewhere);
        assertThat(alice).isEqualTo(new RecordKey(Scope.of("alice", "POST /x"), IdempotencyKey.of("shared")));
        assertThat(alice.hashCode()).isEqualTo(new RecordKey(Scope.parse("alice POST /x"), key).hashCode());
    }

    @Test
    @DisplayName("a record key's toString shows the scope but hides the key's value")
    void recordKeyToString() {
        RecordKey id = new RecordKey(Scope.of("alice", "POST /x"), IdempotencyKey.of("secret-key-value-123"));
        assertThat(id.toString()).contains("alice POST /x").doesNotContain("secret-key-value-123");
    }
}
