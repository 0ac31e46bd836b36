package dev.idem.jakarta.rest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.Idem;
import dev.idem.testing.NonDurableMemoryStore;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The builder refuses bad settings with an error naming the setting. */
class IdempotencyFeatureBuilderTest {
    private final Idem idem = Idem.builder().store(new NonDurableMemoryStore()).build();

    @Test
    void refusesBadSettingsNamingThem() {
        IdempotencyFeature.Builder builder = IdempotencyFeature.builder(idem);

        assertThatThrownBy(() -> IdempotencyFeature.builder(null)).hasMessageContaining("idem");
        assertThatThrownBy(() -> builder.headerName("Idempotency Key")).hasMessageContaining("headerName").hasMessageContaining("position 11");
        assertThatThrownBy(() -> builder.headerName("")).hasMessageContaining("headerName");
        assertThatThrownBy(() -> builder.maxRequestBytes(-1)).hasMessageContaining("maxRequestBytes");
        assertThatThrownBy(() -> builder.scopeResolver(null)).hasMessageContaining("scopeResolver");
        assertThatThrownBy(() -> builder.failureRetryAfter(Duration.ZERO)).hasMessageContaining("failureRetryAfter");
        assertThatThrownBy(() -> ScopeResolver.credentialHeader("X Api")).hasMessageContaining("credential header name");
    }

    @Test
    void buildsWithTheSettingsItWasGiven() {
        IdempotencyFeature feature = IdempotencyFeature.builder(idem).headerName("X-Idempotency-Key").maxRequestBytes(2048)
                .failureRetryAfter(Duration.ofSeconds(5)).build();

        assertThat(feature.toString()).contains("header=X-Idempotency-Key", "maxRequestBytes=2048", "failureRetryAfter=PT5S");
    }
}
