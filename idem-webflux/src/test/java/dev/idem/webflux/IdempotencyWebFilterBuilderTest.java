package dev.idem.webflux;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.Idem;
import dev.idem.testing.NonDurableMemoryStore;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import reactor.core.scheduler.Schedulers;

class IdempotencyWebFilterBuilderTest {
    private final Idem idem = Idem.builder().store(new NonDurableMemoryStore()).build();

    @Test
    void refusesSettingsThatCannotWorkNamingThem() {
        IdempotencyWebFilter.Builder builder = IdempotencyWebFilter.builder(idem);

        assertThatThrownBy(() -> builder.headerName("Idempotency Key")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("headerName").hasMessageContaining("position 11");
        assertThatThrownBy(() -> builder.route("PO ST", "/x")).hasMessageContaining("method");
        assertThatThrownBy(() -> builder.route("POST", "/{unclosed")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("pathPattern");
        assertThatThrownBy(() -> builder.maxRequestBytes(-1)).hasMessageContaining("maxRequestBytes");
        assertThatThrownBy(() -> builder.failureRetryAfter(Duration.ZERO)).hasMessageContaining("failureRetryAfter");
        assertThatThrownBy(() -> builder.storeScheduler(Schedulers.parallel())).hasMessageContaining("storeScheduler must allow blocking");
        assertThatThrownBy(() -> IdempotencyWebFilter.builder(null)).isInstanceOf(NullPointerException.class).hasMessageContaining("idem");
    }

    @Test
    void coversPostAndPatchEverywhereUnlessRoutesAreGiven() {
        assertThat(IdempotencyWebFilter.builder(idem).build().toString()).contains("routes=[[POST, PATCH] /**]");
        assertThat(IdempotencyWebFilter.builder(idem).allUnsafeMethods().route("POST", "/orders/{id}").build().toString())
                .contains("[POST, PUT, PATCH, DELETE] /**").contains("[POST] /orders/{id}");
    }
}
