package dev.idem.servlet.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
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

    @Test
    void aScopePartThatLooksLikeADigestIsDigestedSoItCannotPoseAsAnother() {
        String digestOfCafe = RequestNames.scopePart("caf\u00e9", 128);
        assertThat(RequestNames.scopePart(digestOfCafe, 128)).startsWith("sha256:").isNotEqualTo(digestOfCafe);
    }

    @Test
    void percentEncodingEscapesPercentSpacesControlsAndNonAscii() {
        assertThat(RequestNames.percentEncode("alice@example.com")).isEqualTo("alice@example.com");
        assertThat(RequestNames.percentEncode("John Smith")).isEqualTo("John%20Smith");
        assertThat(RequestNames.percentEncode("100%")).isEqualTo("100%25");
        assertThat(RequestNames.percentEncode("Zo\u00eb")).isEqualTo("Zo%C3%AB");
        assertThat(RequestNames.percentEncode("\uD83D\uDE00")).isEqualTo("%F0%9F%98%80");
        assertThat(RequestNames.percentEncode("a\uD83Db")).isEqualTo("a%uD83Db");
        assertThat(RequestNames.percentEncode("\t\n")).isEqualTo("%09%0A");
    }

    @Test
    void principalPartsOfDistinctKindsOrNamesNeverCoincide() {
        String credentialDigest = RequestNames.sha256Hex("secret-api-key");
        String longName = "n".repeat(200);
        List<String> parts = List.of(
                RequestNames.ANONYMOUS,
                RequestNames.userPrincipal("anonymous"),
                RequestNames.credentialPrincipal("secret-api-key"),
                RequestNames.userPrincipal("sha256:" + credentialDigest),
                RequestNames.userPrincipal("credential:sha256:" + credentialDigest),
                RequestNames.userPrincipal(""),
                RequestNames.userPrincipal(" "),
                RequestNames.userPrincipal("%20"),
                RequestNames.userPrincipal("%"),
                RequestNames.userPrincipal("%25"),
                RequestNames.userPrincipal("\uD800"),
                RequestNames.userPrincipal("\uD801"),
                RequestNames.userPrincipal("?"),
                RequestNames.userPrincipal("%uD800"),
                RequestNames.userPrincipal(longName),
                RequestNames.userPrincipal("user-sha256:" + RequestNames.sha256Hex(longName)));
        assertThat(parts).doesNotHaveDuplicates().allSatisfy(part -> assertThat(part).matches("[!-~]{1,128}"));
        assertThat(RequestNames.userPrincipal("anonymous")).isEqualTo("user:anonymous");
        assertThat(RequestNames.credentialPrincipal("secret-api-key")).isEqualTo("credential:sha256:" + credentialDigest);
        assertThat(RequestNames.userPrincipal(longName)).isEqualTo("user-sha256:" + RequestNames.sha256Hex(longName));
        assertThat(RequestNames.userPrincipal("n".repeat(123))).isEqualTo("user:" + "n".repeat(123));
        assertThat(RequestNames.userPrincipal("n".repeat(124))).startsWith("user-sha256:");
    }
}
