package dev.idem.servlet.internal;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class RequestNamesTest {

    @Test
    void scopePartsAreKeptWhenPlainAndDigestedOtherwise() {
        assertThat(RequestNames.scopePart("user-42", 128)).isEqualTo("user-42");
        assertThat(RequestNames.scopePart("John Smith", 128)).startsWith("sha256:").hasSize(71);
        assertThat(RequestNames.scopePart("x".repeat(129), 128)).startsWith("sha256:");
        assertThat(RequestNames.scopePart("caf\u00e9", 128)).startsWith("sha256:");
        assertThat(RequestNames.scopePart("", 128)).startsWith("sha256:");
        assertThat(RequestNames.scopePart("a b", 128)).isNotEqualTo(RequestNames.scopePart("a c", 128));
    }
}
