package dev.idem.upserts;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.StoreException;
import dev.idem.jdbc.testing.UnusedDataSource;
import dev.idem.upserts.WindowComputation.Cell;
import dev.idem.upserts.WindowComputation.Totals;
import dev.idem.upserts.WindowedTotals.Event;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import javax.sql.DataSource;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The builder and the transformation without a database. */
class WindowedTotalsSettingsTest {
    private static final DataSource UNUSED = new UnusedDataSource();
    private static final Instant T0 = Instant.parse("2025-03-01T10:00:00Z");
    private static final long MINUTE_MS = 60_000;

    @Test
    @DisplayName("each builder setter rejects a bad value and names it")
    void builderValidates() {
        WindowedTotals.Builder b = WindowedTotals.builder(UNUSED);
        assertThatThrownBy(() -> b.name(null)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("was null");
        assertThatThrownBy(() -> b.name("")).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("1-100");
        assertThatThrownBy(() -> b.name("n".repeat(101))).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("101 characters");
        assertThatThrownBy(() -> b.name("charges per minute")).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("position 7");
        assertThatThrownBy(() -> b.window(null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> b.window(Duration.ZERO)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("was PT0S");
        assertThatThrownBy(() -> b.window(Duration.ofMinutes(-1))).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("was PT-1M");
        assertThatThrownBy(() -> b.window(Duration.ofNanos(1_500_000))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("whole milliseconds");
        assertThatThrownBy(() -> b.window(Duration.ofDays(367))).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("PT8784H");
        assertThatThrownBy(() -> b.tableName("Totals")).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'Totals'");
        assertThatThrownBy(() -> b.tableName("t".repeat(49))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> b.dialect(null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> WindowedTotals.builder(null)).isInstanceOf(NullPointerException.class);
        assertThat(b.name("orders.v2:charges/eu-1").window(Duration.ofMillis(1)).window(Duration.ofDays(366))).isSameAs(b);
    }

    @Test
    @DisplayName("build requires a name and a window, then connects: an unreachable database is a StoreException")
    void buildRequiresNameAndWindow() {
        assertThatThrownBy(() -> WindowedTotals.builder(UNUSED).window(Duration.ofMinutes(1)).build())
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("name is required");
        assertThatThrownBy(() -> WindowedTotals.builder(UNUSED).name("charges_per_minute").build())
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("window is required");
        assertThatThrownBy(() -> WindowedTotals.builder(UNUSED).name("charges_per_minute").window(Duration.ofMinutes(1)).build())
                .isInstanceOf(StoreException.class).hasMessageContaining("connect");
    }

    @Test
    @DisplayName("events: ids and groups have 1-255 characters without control characters; errors never quote them")
    void eventsValidate() {
        assertThatThrownBy(() -> new Event("charge-4711\n", T0, "EUR", 1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("position 11").hasMessageNotContaining("4711");
        assertThatThrownBy(() -> new Event("c".repeat(256), T0, "EUR", 1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("256 characters");
        assertThatThrownBy(() -> new Event("id", T0, "", 1)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("event group");
        assertThat(new Event("id", T0, "EUR", -5).amount()).isEqualTo(-5);
    }

    @Test
    @DisplayName("the transformation: windows aligned to the epoch, one count per id, and the same result for every order")
    void computation() {
        List<Event> events = new ArrayList<>(List.of(
                new Event("a", T0, "EUR", 10),
                new Event("b", T0.plusMillis(MINUTE_MS - 1), "EUR", 5),
                new Event("c", T0.plusMillis(MINUTE_MS), "EUR", 1),
                new Event("d", T0.plusSeconds(30), "USD", -3),
                new Event("a", T0, "EUR", 10)));

        Map<Cell, Totals> expected = Map.of(
                new Cell(T0.toEpochMilli(), "EUR"), new Totals(2, 15),
                new Cell(T0.toEpochMilli(), "USD"), new Totals(1, -3),
                new Cell(T0.toEpochMilli() + MINUTE_MS, "EUR"), new Totals(1, 1));
        Random random = new Random(3);
        for (int i = 0; i < 20; i++) {
            Collections.shuffle(events, random);
            WindowComputation.Result result = WindowComputation.compute("t", T0, T0.plusSeconds(120), MINUTE_MS, events);
            assertThat(result.totals()).isEqualTo(expected);
            assertThat(new ArrayList<>(result.totals().keySet())).isSorted();
            assertThat(result.events()).isEqualTo(4);
            assertThat(result.duplicates()).isEqualTo(1);
        }
    }

    @Test
    @DisplayName("sums are exact: an intermediate overflow that the final sum undoes is no error, in any order; a final overflow always is")
    void overflowDoesNotDependOnOrder() {
        List<Event> fits = new ArrayList<>(List.of(
                new Event("max", T0, "EUR", Long.MAX_VALUE),
                new Event("plus", T0, "EUR", 1),
                new Event("minus", T0, "EUR", -1),
                new Event("min", T0, "USD", Long.MIN_VALUE),
                new Event("minus2", T0, "USD", -1),
                new Event("plus2", T0, "USD", 1)));
        for (int i = 0; i < fits.size(); i++) {
            Collections.rotate(fits, 1);
            assertThat(WindowComputation.compute("t", T0, T0.plusSeconds(60), MINUTE_MS, fits).totals())
                    .containsEntry(new Cell(T0.toEpochMilli(), "EUR"), new Totals(3, Long.MAX_VALUE))
                    .containsEntry(new Cell(T0.toEpochMilli(), "USD"), new Totals(3, Long.MIN_VALUE));
        }
        List<Event> overflows = List.of(new Event("max", T0, "EUR", Long.MAX_VALUE), new Event("plus", T0, "EUR", 1));
        assertThatThrownBy(() -> WindowComputation.compute("charges", T0, T0.plusSeconds(60), MINUTE_MS, overflows))
                .isInstanceOf(ArithmeticException.class).hasMessageContaining("aggregate 'charges'")
                .hasMessageContaining("window starting at " + T0).hasMessageContaining("group 'EUR'");
    }

    @Test
    @DisplayName("windows before the epoch align too: floor, not truncation toward zero")
    void windowsBeforeTheEpoch() {
        Instant from = Instant.ofEpochMilli(-2 * MINUTE_MS);
        List<Event> events = List.of(new Event("x", Instant.ofEpochMilli(-1), "EUR", 7));

        assertThat(WindowComputation.compute("t", from, Instant.EPOCH, MINUTE_MS, events).totals())
                .containsOnlyKeys(new Cell(-MINUTE_MS, "EUR"));
    }
}
