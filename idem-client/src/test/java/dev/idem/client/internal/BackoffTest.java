package dev.idem.client.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class BackoffTest {
    private static final Duration BASE = Duration.ofMillis(100);
    private static final Duration CAP = Duration.ofSeconds(5);

    @Test
    void the_ceiling_doubles_from_the_base_up_to_the_cap() {
        Backoff backoff = new Backoff(BASE, CAP, null);

        assertThat(backoff.ceiling(0)).isEqualTo(Duration.ofMillis(100));
        assertThat(backoff.ceiling(1)).isEqualTo(Duration.ofMillis(200));
        assertThat(backoff.ceiling(5)).isEqualTo(Duration.ofMillis(3200));
        assertThat(backoff.ceiling(6)).isEqualTo(CAP); // 6.4 s capped
        assertThat(backoff.ceiling(61)).isEqualTo(CAP);
        assertThat(backoff.ceiling(1_000)).as("no overflow for huge retry numbers").isEqualTo(CAP);
    }

    @Test
    void delays_are_full_jitter_within_zero_and_the_ceiling() {
        Backoff backoff = new Backoff(BASE, CAP, new SplittableRandom(7));

        for (int retry = 0; retry < 12; retry++) {
            for (int i = 0; i < 200; i++) {
                assertThat(backoff.delay(retry)).isBetween(Duration.ZERO, backoff.ceiling(retry));
            }
        }
    }

    @Test
    void full_jitter_spreads_over_the_whole_range_not_just_its_top() {
        Backoff backoff = new Backoff(BASE, CAP, new SplittableRandom(11));
        Duration ceiling = backoff.ceiling(6);

        long belowHalf = 0;
        for (int i = 0; i < 1_000; i++) {
            if (backoff.delay(6).compareTo(ceiling.dividedBy(2)) < 0) {
                belowHalf++;
            }
        }

        assertThat(belowHalf).isBetween(400L, 600L); // uniform: about half below the middle
    }

    @Test
    void a_seed_makes_the_delays_reproducible() {
        assertThat(draws(new Backoff(BASE, CAP, new SplittableRandom(42))))
                .isEqualTo(draws(new Backoff(BASE, CAP, new SplittableRandom(42))));
    }

    @Test
    void a_negative_retry_number_is_a_bug() {
        assertThatThrownBy(() -> new Backoff(BASE, CAP, null).delay(-1))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("retry must not be negative, was -1");
    }

    private static List<Duration> draws(Backoff backoff) {
        List<Duration> out = new ArrayList<>();
        for (int retry = 0; retry < 10; retry++) {
            out.add(backoff.delay(retry));
        }
        return out;
    }
}
