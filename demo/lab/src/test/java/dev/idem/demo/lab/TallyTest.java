package dev.idem.demo.lab;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The table's arithmetic on constructed ledgers and client records. */
class TallyTest {
    private static int next;

    private static PaymentRecord payment(String card, Attempt... attempts) {
        PaymentRecord record = new PaymentRecord(new Payment("p-" + card, 100, "EUR", card));
        for (Attempt attempt : attempts) {
            record.add(attempt);
        }
        return record;
    }

    private static Attempt ok(String key, String body, long micros) {
        return new Attempt(0, ++next, key, 0, micros, true, 201, null, false, body);
    }

    private static Attempt replay(String key, String body) {
        return new Attempt(0, ++next, key, 0, 1_000, true, 201, null, true, body);
    }

    private static Attempt noAnswer(String key) {
        return new Attempt(0, ++next, key, 0, 5_000, true, 0, "connection reset", false, null);
    }

    private static Attempt refused() {
        return new Attempt(0, ++next, null, 0, 100, false, 0, "connection refused", false, null);
    }

    private static Attempt status(int status) {
        return new Attempt(0, ++next, "k", 0, 2_000, true, status, null, false, null);
    }

    private static LedgerCharge charge(String card) {
        return new LedgerCharge("ch_" + (++next), "gk", 100, "EUR", card, null, "2025-01-01T00:00:00Z");
    }

    @Test
    void aPaymentWithNoChargeWhoseClientGaveUpIsLost() {
        List<PaymentRecord> records = List.of(payment("a", noAnswer(null)), payment("b", ok(null, "{}", 1_000)));

        Figures f = Tally.count(records, List.of(charge("b")));

        assertThat(f.payments()).isEqualTo(2);
        assertThat(f.lost()).isEqualTo(1);
        assertThat(f.charges()).isEqualTo(1);
        assertThat(f.duplicated()).isZero();
        assertThat(f.unconfirmed()).isZero();
        assertThat(Tally.asExpected(Expectation.LOSES_PAYMENTS, f)).isTrue();
        assertThat(Tally.asExpected(Expectation.EXACTLY_ONCE, f)).isFalse();
    }

    @Test
    void aChargeWhoseAnswerWasLostIsUnconfirmedNotLost() {
        Figures f = Tally.count(List.of(payment("a", noAnswer(null))), List.of(charge("a")));

        assertThat(f.lost()).isZero();
        assertThat(f.unconfirmed()).isEqualTo(1);
        assertThat(f.chargesPerPayment()).containsEntry("1", 1).containsEntry("0", 0);
    }

    @Test
    void paymentsChargedMoreThanOnceAreDuplicatedAndBucketed() {
        List<PaymentRecord> records = List.of(
                payment("a", noAnswer(null), ok(null, "{\"id\":1}", 1_000)),
                payment("b", noAnswer(null), noAnswer(null), ok(null, "{\"id\":2}", 1_000)),
                payment("c", ok(null, "{\"id\":3}", 1_000)),
                payment("d", refused()));
        List<LedgerCharge> ledger = List.of(charge("a"), charge("a"), charge("b"), charge("b"), charge("b"), charge("c"));

        Figures f = Tally.count(records, ledger);

        assertThat(f.charges()).isEqualTo(6);
        assertThat(f.duplicated()).isEqualTo(2);
        assertThat(f.lost()).isEqualTo(1);
        assertThat(f.chargesPerPayment()).containsExactlyEntriesOf(new java.util.LinkedHashMap<>(java.util.Map.of()) {
            {
                put("0", 1);
                put("1", 1);
                put("2", 1);
                put("3+", 1);
            }
        });
        assertThat(f.requestsSent()).as("a refused connection sent nothing").isEqualTo(6);
        assertThat(Tally.asExpected(Expectation.DUPLICATES_CHARGES, f)).isTrue();
    }

    @Test
    void ledgerRowsOfOtherScenariosAreNotCounted() {
        Figures f = Tally.count(List.of(payment("mine", ok("k", "{}", 1_000))), List.of(charge("mine"), charge("someone-else")));

        assertThat(f.charges()).isEqualTo(1);
        assertThat(Tally.asExpected(Expectation.EXACTLY_ONCE, f)).isTrue();
    }

    @Test
    void aKeyWhoseSuccessfulRepliesDifferIsCountedOnce() {
        List<PaymentRecord> records = List.of(
                payment("a", ok("k1", "{\"id\":1}", 1_000), replay("k1", "{\"id\":1}")),
                payment("b", ok("k2", "{\"id\":2}", 1_000), ok("k2", "{\"id\":99}", 1_000), ok("k2", "{\"id\":98}", 1_000)),
                payment("c", status(409), ok("k3", "{\"id\":3}", 1_000)));

        Figures f = Tally.count(records, List.of(charge("a"), charge("b"), charge("c")));

        assertThat(f.differingKeys()).as("only k2; a 409 before the 201 is no differing reply").isEqualTo(1);
        assertThat(Tally.asExpected(Expectation.EXACTLY_ONCE, f)).isFalse();
    }

    @Test
    void aConfirmationTheLedgerDoesNotBackIsAnAnomaly() {
        Figures f = Tally.count(List.of(payment("a", ok("k", "{}", 1_000))), List.of());

        assertThat(f.confirmedWithoutCharge()).isEqualTo(1);
        assertThat(f.lost()).isZero();
        assertThat(Tally.asExpected(Expectation.EXACTLY_ONCE, f)).isFalse();
    }

    @Test
    void latencyPercentilesAreNearestRankOverRequestsSent() {
        List<Attempt> attempts = new ArrayList<>();
        for (int ms = 1; ms <= 100; ms++) {
            attempts.add(ok("k" + ms, "{}", ms * 1_000L));
        }
        attempts.add(refused());
        PaymentRecord record = payment("a", attempts.toArray(new Attempt[0]));

        Figures f = Tally.count(List.of(record), List.of(charge("a")));

        assertThat(f.requestsSent()).isEqualTo(100);
        assertThat(f.p50Millis()).isEqualTo(50.0);
        assertThat(f.p99Millis()).isEqualTo(99.0);
        assertThat(Tally.percentile(List.of(), 50)).isZero();
        assertThat(Tally.percentile(List.of(7.0), 99)).isEqualTo(7.0);
    }

    private static Attempt keyExpired(String key) {
        return new Attempt(0, ++next, key, 0, 1_000, true, 410, null, false,
                "{\"type\":\"" + PaymentsServiceContract.KEY_EXPIRED_TYPE + "\",\"status\":410}");
    }

    @Test
    void lateRetriesAnswered410KeyExpiredShowTheTombstonesRowOnlyIfEveryOneWasAndNothingRanAgain() {
        List<PaymentRecord> told = List.of(payment("a", ok("k1", "{\"id\":1}", 1_000), keyExpired("k1")),
                payment("b", ok("k2", "{\"id\":2}", 1_000), keyExpired("k2")));
        List<PaymentRecord> ranAgain = List.of(payment("a", ok("k1", "{\"id\":1}", 1_000), keyExpired("k1")),
                payment("b", ok("k2", "{\"id\":2}", 1_000), ok("k2", "{\"id\":3}", 1_000)));

        Figures f = Tally.count(told, List.of(charge("a"), charge("b")));
        Figures again = Tally.count(ranAgain, List.of(charge("a"), charge("b"), charge("b")));

        assertThat(f.expired()).isEqualTo(2);
        assertThat(Tally.asExpected(Expectation.ANSWERS_EXPIRED, f)).isTrue();
        assertThat(again.expired()).isEqualTo(1);
        assertThat(again.duplicated()).isEqualTo(1);
        assertThat(Tally.asExpected(Expectation.ANSWERS_EXPIRED, again)).isFalse();
        assertThat(Tally.asExpected(Expectation.DUPLICATES_CHARGES, again)).isTrue();
        assertThat(Tally.count(List.of(payment("c", status(410))), List.of()).expired()).as("a 410 of another kind").isZero();
    }

    @Test
    void theGiveUpRowsAreDecidedByWhatTheServiceRecordedWhileTheClientsStayedAway() {
        List<PaymentRecord> lateReplays = List.of(payment("a", noAnswer("k1"), replay("k1", "{\"id\":1}")),
                payment("b", noAnswer("k2"), replay("k2", "{\"id\":2}")));
        Figures f = Tally.count(lateReplays, List.of(charge("a"), charge("b")));

        assertThat(Tally.asExpected(Expectation.COMPLETES_ABANDONED, f, new Abandonment(2, 2, 0, 3_000, 2, 0, 0))).isTrue();
        assertThat(Tally.asExpected(Expectation.COMPLETES_ABANDONED, f, new Abandonment(2, 2, 1, 12_000, 2, 0, 0)))
                .as("one charged payment never recorded").isFalse();
        assertThat(Tally.asExpected(Expectation.COMPLETES_ABANDONED, f, new Abandonment(2, 2, 0, 3_000, 1, 1, 0)))
                .as("a late retry that ran instead of replaying").isFalse();
        assertThat(Tally.asExpected(Expectation.COMPLETES_ABANDONED, f, new Abandonment(2, 0, 0, 12_000, 0, 2, 0)))
                .as("no kill fell after a charge: the row shows nothing").isFalse();
        assertThat(Tally.asExpected(Expectation.LEAVES_UNRECORDED, f, new Abandonment(2, 2, 2, 12_000, 0, 2, 0))).isTrue();
        assertThat(Tally.asExpected(Expectation.LEAVES_UNRECORDED, f, new Abandonment(2, 2, 0, 3_000, 2, 0, 0))).isFalse();
        Figures twice = Tally.count(lateReplays, List.of(charge("a"), charge("b"), charge("b")));
        assertThat(Tally.asExpected(Expectation.LEAVES_UNRECORDED, twice, new Abandonment(2, 2, 2, 12_000, 0, 2, 0)))
                .as("a payment charged twice fails every row").isFalse();
        assertThat(Tally.asExpected(Expectation.COMPLETES_ABANDONED, f)).as("without the abandoned payments' figures").isFalse();
    }

    @Test
    void exactlyOnceNeedsEveryPaymentChargedOnceAndConfirmed() {
        List<PaymentRecord> records = List.of(
                payment("a", noAnswer("k1"), replay("k1", "{\"id\":1}")),
                payment("b", status(503), ok("k2", "{\"id\":2}", 1_000)));

        Figures f = Tally.count(records, List.of(charge("a"), charge("b")));

        assertThat(f.lost()).isZero();
        assertThat(f.duplicated()).isZero();
        assertThat(f.unconfirmed()).isZero();
        assertThat(Tally.asExpected(Expectation.EXACTLY_ONCE, f)).isTrue();
        assertThat(Tally.asExpected(Expectation.DUPLICATES_CHARGES, f)).isFalse();
        assertThat(Tally.asExpected(Expectation.LOSES_PAYMENTS, f)).isFalse();
    }

    @Test
    void theLedgerCountsEntriesOfTheScenariosCardsOnlyAndEachEntryBeyondTheFirstAsADuplicate() {
        LedgerFigures l = Tally.countLedger(java.util.Set.of("a", "b", "c"), java.util.Set.of("a", "b", "c"),
                List.of("a", "warm-up", "b", "b", "a", "b", "c"), 1, 2);

        assertThat(l.entries()).as("the warm-up entry is not one of the scenario's").isEqualTo(6);
        assertThat(l.duplicatedEntries()).isEqualTo(3);
        assertThat(l.missing()).isZero();
        assertThat(l.paid()).isEqualTo(3);
        assertThat(l.consumerKills()).isEqualTo(1);
        assertThat(l.consumerStarts()).isEqualTo(2);
    }

    @Test
    void aConfirmedPaymentWithoutAnEntryIsMissing() {
        LedgerFigures l = Tally.countLedger(java.util.Set.of("a", "b", "c"), java.util.Set.of("a", "b"), List.of("a"), 0, 1);

        assertThat(l.missing()).isEqualTo(1);
        assertThat(l.entries()).isEqualTo(1);
    }

    @Test
    void aMessagingRowNeedsItsHttpSideExactlyOnceAndTheLedgerAsExpected() {
        PaymentRecord a = payment("a", ok("k1", "{}", 1_000));
        PaymentRecord b = payment("b", ok("k2", "{}", 1_000));
        List<LedgerCharge> charges = List.of(charge("a"), charge("b"));
        Figures clean = Tally.count(List.of(a, b), charges);
        LedgerFigures once = new LedgerFigures(2, 2, 0, 0, 1, 2);
        LedgerFigures twice = new LedgerFigures(2, 3, 1, 0, 1, 2);
        LedgerFigures missing = new LedgerFigures(2, 2, 1, 1, 1, 2);

        assertThat(Tally.asExpected(Expectation.EXACTLY_ONCE, clean, once)).isTrue();
        assertThat(Tally.asExpected(Expectation.EXACTLY_ONCE, clean, twice)).isFalse();
        assertThat(Tally.asExpected(Expectation.DUPLICATES_LEDGER_ENTRIES, clean, twice)).isTrue();
        assertThat(Tally.asExpected(Expectation.DUPLICATES_LEDGER_ENTRIES, clean, once)).isFalse();
        assertThat(Tally.asExpected(Expectation.DUPLICATES_LEDGER_ENTRIES, clean, missing)).as("a lost event is not the lesson").isFalse();
        Figures duplicateCharge = Tally.count(List.of(a, b), List.of(charge("a"), charge("a"), charge("b")));
        assertThat(Tally.asExpected(Expectation.DUPLICATES_LEDGER_ENTRIES, duplicateCharge, twice))
                .as("the HTTP side must be exactly once for the row to be about the consumer").isFalse();
    }
}
