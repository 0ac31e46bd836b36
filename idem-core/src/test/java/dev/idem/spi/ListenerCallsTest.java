package dev.idem.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class ListenerCallsTest {

    @Test
    @DisplayName("a listener call runs, and what it throws does not reach the caller")
    void runsAndSwallowsRuntimeExceptions() {
        AtomicInteger calls = new AtomicInteger();

        ListenerCalls.run("processed", calls::incrementAndGet);
        ListenerCalls.run("failed", () -> {
            calls.incrementAndGet();
            throw new IllegalStateException("listener bug");
        });

        assertThat(calls).hasValue(2);
    }

    @Test
    @DisplayName("an Error from a listener is not swallowed")
    void errorsPropagate() {
        assertThatThrownBy(() -> ListenerCalls.run("processed", () -> {
            throw new AssertionError("out of memory, say");
        })).isInstanceOf(AssertionError.class).hasMessage("out of memory, say");
    }
}
