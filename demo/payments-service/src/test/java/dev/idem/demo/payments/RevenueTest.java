package dev.idem.demo.payments;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.testing.RealServices;
import dev.idem.testing.TestDatabase;
import dev.idem.upserts.WindowedTotals.Recomputation;
import dev.idem.upserts.WindowedTotals.WindowTotal;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Revenue per minute recomputed from real payment tables: twice gives the same totals, and only paid payments count. */
class RevenueTest {

    static Stream<Arguments> databases() {
        return Stream.of(
                Arguments.of("SQLite", (Supplier<TestDatabase>) RealServices::sqlite),
                Arguments.of("PostgreSQL", (Supplier<TestDatabase>) RealServices::postgres));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("databases")
    void recomputingTwiceGivesTheSameTotalsAndChangesNothingTheSecondTime(String name, Supplier<TestDatabase> open) {
        try (TestDatabase db = open.get()) {
            PaymentRepository payments = new PaymentRepository(db.dataSource());
            payments.createTable();
            Revenue revenue = new Revenue(db.dataSource());
            revenue.migrate();
            Instant from = Instant.now().truncatedTo(ChronoUnit.MINUTES).minus(Duration.ofMinutes(1));
            pay(payments, "k-1", new PaymentRequest(1250, "EUR", "card-1"));
            pay(payments, "k-2", new PaymentRequest(300, "EUR", "card-2"));
            pay(payments, "k-3", new PaymentRequest(700, "USD", "card-1"));
            payments.createPending("k-4", new PaymentRequest(9999, "EUR", "card-3"));
            Instant to = Instant.now().truncatedTo(ChronoUnit.MINUTES).plus(Duration.ofMinutes(2));

            Recomputation first = revenue.recompute(from, to);
            List<WindowTotal> afterFirst = revenue.totals(from, to);
            Recomputation second = revenue.recompute(from, to);
            List<WindowTotal> afterSecond = revenue.totals(from, to);

            assertThat(first.events()).isEqualTo(3);
            assertThat(first.changed()).isTrue();
            assertThat(second.changed()).isFalse();
            assertThat(second.unchanged()).isEqualTo(first.inserted());
            assertThat(afterSecond).isEqualTo(afterFirst);
            assertThat(sumByCurrency(afterSecond)).isEqualTo(Map.of("EUR", 1550L, "USD", 700L));
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("databases")
    void aRangeOffTheMinuteIsRefusedNamingTheBoundary(String name, Supplier<TestDatabase> open) {
        try (TestDatabase db = open.get()) {
            new PaymentRepository(db.dataSource()).createTable();
            Revenue revenue = new Revenue(db.dataSource());
            revenue.migrate();
            Instant from = Instant.parse("2026-12-01T10:00:30Z");
            assertThatThrownBy(() -> revenue.recompute(from, from.plus(Duration.ofMinutes(1))))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("window boundary");
        }
    }

    private static void pay(PaymentRepository payments, String key, PaymentRequest request) {
        payments.markPaid(payments.createPending(key, request), "ch_" + key);
    }

    private static Map<String, Long> sumByCurrency(List<WindowTotal> totals) {
        Map<String, Long> sums = new TreeMap<>();
        for (WindowTotal total : totals) {
            sums.merge(total.group(), total.sum(), Long::sum);
        }
        return sums;
    }
}
