package dev.idem;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The completer's builder and back-off; its runs against real stores are {@code dev.idem.testing.CompleterContract}. */
class CompleterTest {
    private final Idem idem = Idem.builder().store(new FakeStore()).build();
    private final OperationRegistry registry = OperationRegistry.builder()
            .register("charge", InputCodec.UTF8, (run, input) -> StoredResponse.of(200, input.getBytes(StandardCharsets.UTF_8))).build();

    @Test
    @DisplayName("the completer's builder refuses a store without administration() and bad settings, naming them")
    void completerBuilderValidates() {
        assertThatThrownBy(() -> Completer.builder(idem, registry).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("FakeStore").hasMessageContaining("administration() is empty");
        assertThatThrownBy(() -> Completer.builder(null, registry)).isInstanceOf(NullPointerException.class).hasMessage("idem is null");
        assertThatThrownBy(() -> Completer.builder(idem, null)).isInstanceOf(NullPointerException.class).hasMessage("registry is null");
        Completer.Builder builder = Completer.builder(idem, registry);
        assertThatThrownBy(() -> builder.maxAttempts(1)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("maxAttempts must be 2-1000");
        assertThatThrownBy(() -> builder.delay(Duration.ZERO)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("delay must be at least 1 ms");
        assertThatThrownBy(() -> builder.pollInterval(null)).isInstanceOf(NullPointerException.class).hasMessage("pollInterval is null");
        assertThatThrownBy(() -> builder.maxBackoff(Duration.ofNanos(5))).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("maxBackoff");
        assertThatThrownBy(() -> builder.listener(null)).isInstanceOf(NullPointerException.class).hasMessage("listener is null");
    }

    @Test
    @DisplayName("the wait before each attempt starts at the delay, doubles per attempt, stops at maxBackoff and never goes below the delay")
    void backOffDoublesUpToItsCap() {
        Duration delay = Duration.ofSeconds(10);
        Duration cap = Duration.ofSeconds(50);
        assertThat(Completer.waitBefore(1, delay, cap)).isEqualTo(Duration.ofSeconds(10));
        assertThat(Completer.waitBefore(2, delay, cap)).isEqualTo(Duration.ofSeconds(20));
        assertThat(Completer.waitBefore(3, delay, cap)).isEqualTo(Duration.ofSeconds(40));
        assertThat(Completer.waitBefore(4, delay, cap)).isEqualTo(Duration.ofSeconds(50));
        assertThat(Completer.waitBefore(1000, delay, cap)).isEqualTo(Duration.ofSeconds(50));
        assertThat(Completer.waitBefore(3, delay, Duration.ofSeconds(1))).as("a cap below the delay").isEqualTo(delay);
    }
}
