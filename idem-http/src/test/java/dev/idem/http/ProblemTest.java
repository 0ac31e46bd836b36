package dev.idem.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class ProblemTest {

    @Test
    void retryAfterIsWholeSecondsRoundedUpAndAtLeastOne() {
        assertThat(Problem.retryAfterSeconds(Duration.ZERO)).isEqualTo(1);
        assertThat(Problem.retryAfterSeconds(Duration.ofMillis(1))).isEqualTo(1);
        assertThat(Problem.retryAfterSeconds(Duration.ofMillis(1000))).isEqualTo(1);
        assertThat(Problem.retryAfterSeconds(Duration.ofMillis(1001))).isEqualTo(2);
        assertThat(Problem.retryAfterSeconds(Duration.ofSeconds(-5))).isEqualTo(1);
    }

    @Test
    void typesAreUrnsNamingTheProblem() {
        assertThat(Problem.values()).extracting(Problem::type).containsExactly(
                "urn:idem:problem:key-missing", "urn:idem:problem:key-invalid", "urn:idem:problem:key-in-use",
                "urn:idem:problem:key-mismatch", "urn:idem:problem:key-expired", "urn:idem:problem:request-too-large", "urn:idem:problem:malformed-json",
                "urn:idem:problem:request-not-storable", "urn:idem:problem:store-unavailable");
        assertThat(Problem.values()).extracting(Problem::status).containsExactly(400, 400, 409, 422, 410, 413, 400, 400, 503);
    }
}
