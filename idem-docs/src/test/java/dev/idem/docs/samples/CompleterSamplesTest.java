package dev.idem.docs.samples;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.Fingerprint;
import dev.idem.Idem;
import dev.idem.IdempotencyKey;
import dev.idem.Outcome;
import dev.idem.Scope;
import dev.idem.jdbc.JdbcIdempotencyStore;
import dev.idem.testing.RealServices;
import dev.idem.testing.TestDatabase;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The completer's samples run as printed, on a real SQLite file. */
class CompleterSamplesTest {

    @Test
    @DisplayName("completer-register and completer-start: the registered charge runs with its input, and the completer starts and stops")
    void registeredOperationRunsAndTheCompleterStarts() {
        List<String> charges = new ArrayList<>();
        CardGateway gateway = (key, amount) -> {
            charges.add(amount + " under " + key);
            return "ch_" + charges.size();
        };
        try (TestDatabase db = RealServices.sqlite()) {
            JdbcIdempotencyStore store = JdbcIdempotencyStore.builder(db.dataSource()).build();
            store.migrate();
            Idem idem = Idem.builder().store(store).build();

            CompleterSamples.Ran ran = CompleterSamples.completer(idem, gateway, Scope.of("alice", "POST /payments"),
                    IdempotencyKey.of("order-1"), Fingerprint.none(), "1250");

            try (var completer = ran.completer()) {
                assertThat(ran.outcome()).isInstanceOf(Outcome.Executed.class);
                assertThat(new String(((Outcome.Executed) ran.outcome()).response().body(), StandardCharsets.UTF_8)).isEqualTo("ch_1");
                assertThat(charges).singleElement().asString().startsWith("1250 under charge-");
                assertThat(ran.operations().names()).containsExactly("charge");
                assertThat(completer.isRunning()).isTrue();
            }
            assertThat(ran.completer().isRunning()).isFalse();
        }
    }

    @Test
    @DisplayName("completer-servlet-route: the route's operation is registered, and the filter builds")
    void servletRouteSample() {
        Idem idem = Idem.builder().store(new dev.idem.testing.NonDurableMemoryStore()).build();
        CompleterSamples.ServletRoute route = CompleterSamples.servletRoute(idem, new jakarta.servlet.http.HttpServlet() {
            private static final long serialVersionUID = 1L;
        });
        assertThat(route.operations().names()).containsExactly("http:POST:/payments");
        assertThat(route.filter()).isNotNull();
    }
}
