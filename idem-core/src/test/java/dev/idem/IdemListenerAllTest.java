package dev.idem;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class IdemListenerAllTest {
    private static final Scope SCOPE = Scope.of("user-1", "POST /orders");

    @Test
    @DisplayName("every listener hears each event in order, even after one of them throws")
    void eachListenerIsToldEvenAfterOneThrows() {
        RecordingListener first = new RecordingListener();
        IdemListener failing = new IdemListener() {
            @Override
            public void replayed(Scope scope) {
                throw new IllegalStateException("listener bug");
            }
        };
        RecordingListener last = new RecordingListener();

        IdemListener all = IdemListener.all(List.of(first, failing, last));
        all.claimed(SCOPE, 1);
        all.replayed(SCOPE);
        all.purged(3);

        assertThat(first.events()).isEqualTo(last.events()).hasSize(3);
        assertThat(last.scopes()).startsWith(SCOPE, SCOPE);
    }

    @Test
    @DisplayName("no listener is the no-op, a single one is itself")
    void noneIsTheNoopAndOneIsItself() {
        RecordingListener only = new RecordingListener();

        assertThat(IdemListener.all(List.of())).isSameAs(IdemListener.noop());
        assertThat(IdemListener.all(List.of(only))).isSameAs(only);
    }
}
