package dev.idem.demo.lab;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Which measured payment the report draws as "a lost response, then a replay". */
class ReplaySampleTest {
    private static final Scenario LOSSY = Scenarios.select(List.of("idem-lossy")).get(0);
    private static final Figures ANY = new Figures(1, 2, 1, 0, 0, 0, 0, 0, 0, 1, 1, Map.of());
    private static final LedgerCharge CHARGE = new LedgerCharge("ch_1", "downstream", 100, "EUR", "card-1", null, "2025-01-01T00:00:00Z");

    private static Optional<ReplaySample> sampleOf(Attempt... attempts) {
        PaymentRecord record = new PaymentRecord(new Payment("p-1", 100, "EUR", "card-1"));
        for (Attempt attempt : attempts) {
            record.add(attempt);
        }
        return ReplaySample.find(List.of(new ScenarioResult(LOSSY, ANY, true, Map.of(), 0, 0, 1_000, List.of(record), List.of(CHARGE))));
    }

    private static Attempt lost(int number) {
        return new Attempt(0, number, "key-1", number * 10L, 1_000, true, 0, "connection reset", false, null);
    }

    private static Attempt answered(int number, int status, boolean replayed) {
        return new Attempt(0, number, "key-1", number * 10L, 1_000, true, status, null, replayed, "{}");
    }

    @Test
    void aLostFirstAttemptAnsweredByAReplayIsTheSample() {
        Optional<ReplaySample> sample = sampleOf(lost(1), answered(2, 201, true));
        assertThat(sample).isPresent();
        assertThat(sample.get().attempts()).extracting(Attempt::number).containsExactly(1, 2);
    }

    @Test
    void inProgressAnswersBetweenRanNothingSoTheReplayStillProvesTheFirstRan() {
        Optional<ReplaySample> sample = sampleOf(lost(1), answered(2, 409, false), answered(3, 409, false), answered(4, 201, true));
        assertThat(sample).isPresent();
        assertThat(sample.get().attempts()).extracting(Attempt::number).containsExactly(1, 4);
    }

    @Test
    void aSecondUnansweredAttemptMakesItUnclearWhichOneRanSoItIsNotASample() {
        assertThat(sampleOf(lost(1), lost(2), answered(3, 201, true))).isEmpty();
    }

    @Test
    void aFirstAttemptThatWasAnsweredOrAFreshExecutionIsNotASample() {
        assertThat(sampleOf(answered(1, 201, false))).isEmpty();
        assertThat(sampleOf(lost(1), answered(2, 201, false))).isEmpty();
    }
}
