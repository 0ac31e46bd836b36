package dev.idem.demo.lab;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The fleet checker, on hand-made histories: each must-be-0 figure caught by itself, and a clean history clean. */
class FleetCheckerTest {
    private static final String PREFIX = "lab-t-fleet-idem-";
    private static final FleetChecker.History HISTORY = new FleetChecker.History(3, Map.of("takeovers", 2L), 1,
            List.of(new NemesisEvent(10, "sigkill", "instance-1", "SIGKILL pid 1"), new NemesisEvent(900, "restart", "instance-1", "up")),
            Map.of("instance-2", "off (--coalesce=dialect)", "instance-1", "on (--coalesce=on)"));

    private static PaymentRecord record(int n) {
        return new PaymentRecord(new Payment("fleet-" + n, 100, "EUR", PREFIX + n));
    }

    private static String body(String id, String charge) {
        return "{\"id\":\"" + id + "\",\"status\":\"paid\",\"chargeId\":\"" + charge + "\",\"amount\":100,\"currency\":\"EUR\"}";
    }

    private static Attempt ok(int sender, String body, long at) {
        return new Attempt(sender, 1, "k", at, 2_000, true, 201, null, false, body);
    }

    private static Attempt failed(int status) {
        return new Attempt(0, 1, "k", 0, 12_000_000, true, status, status == 0 ? "timeout" : null, false, null);
    }

    private static LedgerCharge charge(String id, int n) {
        return new LedgerCharge(id, "gk-" + id, 100, "EUR", PREFIX + n, null, "now");
    }

    @Test
    void theReportSaysWhichInstanceCoalescedCommitsAndTheChoiceMapsToEachInstancesFlag() {
        FleetFigures f = FleetChecker.check(List.of(), List.of(), List.of(), PREFIX, HISTORY);
        assertThat(FleetReport.nemesisLine(f)).endsWith("; coalesced commits: instance-1 on (--coalesce=on), instance-2 off (--coalesce=dialect)");
        assertThat(List.of(0, 1, 2).stream().map(FleetCoalesce.MIXED::serviceFlag)).containsExactly("on", "dialect", "dialect");
        assertThat(FleetCoalesce.ON.serviceFlag(2)).isEqualTo("on");
        assertThat(FleetCoalesce.OFF.serviceFlag(0)).isEqualTo("off");
        assertThat(FleetSettings.defaults().coalesce()).as("the default is what FleetLabIT runs").isEqualTo(FleetCoalesce.MIXED);
        assertThatThrownBy(() -> FleetCoalesce.fromFlag("yes")).hasMessage("--fleet-coalesce must be on, off or mixed, was 'yes'");
    }

    @Test
    void aCleanHistoryHasEveryMustBeZeroFigureAtZero() {
        PaymentRecord one = record(1);
        one.add(failed(0));
        one.add(ok(0, body("pay_1", "ch_1"), 1_500));
        one.add(ok(1, body("pay_1", "ch_1"), 1_600));
        PaymentRecord two = record(2);
        two.add(failed(503));
        two.add(ok(0, body("pay_2", "ch_2"), 2_500));

        FleetFigures f = FleetChecker.check(List.of(one, two), List.of(charge("ch_1", 1), charge("ch_2", 2), new LedgerCharge("ch_x", "gk", 100, "EUR", "another-fleet-1", null, "now")),
                List.of(new FleetChecker.PaymentRow("pay_1", PREFIX + 1, "paid", "ch_1"), new FleetChecker.PaymentRow("pay_2", PREFIX + 2, "paid", "ch_2")),
                PREFIX, HISTORY);

        assertThat(f.violations()).isZero();
        assertThat(f.charges()).isEqualTo(2);
        assertThat(f.requests()).isEqualTo(5);
        assertThat(f.hedges()).isEqualTo(1);
        assertThat(f.failures()).containsEntry("no answer", 1).containsEntry("503", 1);
        assertThat(f.gaveUp()).isZero();
        assertThat(f.confirmedPerSecond()).containsExactly(0, 2, 1);
        assertThat(f.counter("takeovers")).isEqualTo(2);
        assertThat(f.count("sigkill")).isEqualTo(1);
    }

    @Test
    void eachWayOfBreakingExactlyOnceIsCountedByItself() {
        List<PaymentRecord> records = new ArrayList<>();
        for (int n = 1; n <= 6; n++) {
            records.add(record(n));
        }
        records.get(0).add(ok(0, body("pay_1", "ch_1"), 0));                 // charged twice
        records.get(1).add(ok(0, body("pay_2", "ch_2"), 0));                 // 2xx, no charge
        records.get(2).add(ok(0, body("pay_3", "ch_3"), 0));                 // bodies differ
        records.get(2).add(ok(1, body("pay_3b", "ch_3"), 0));
        records.get(3).add(ok(0, body("pay_4", "ch_4"), 0));                 // charge not on the row
        records.get(4).add(ok(0, body("pay_5", "ch_5"), 0));                 // two rows
        records.get(5).add(failed(0));                                       // gave up, charged: unconfirmed
        List<LedgerCharge> ledger = List.of(charge("ch_1", 1), charge("ch_1b", 1), charge("ch_3", 3), charge("ch_4", 4),
                charge("ch_5", 5), charge("ch_6", 6), charge("ch_7", 7));    // card 7: nobody asked
        List<FleetChecker.PaymentRow> rows = List.of(new FleetChecker.PaymentRow("pay_1", PREFIX + 1, "paid", "ch_1"),
                new FleetChecker.PaymentRow("pay_2", PREFIX + 2, "paid", "ch_2"), new FleetChecker.PaymentRow("pay_3", PREFIX + 3, "paid", "ch_3"),
                new FleetChecker.PaymentRow("pay_3b", PREFIX + 3, "paid", "ch_3"), new FleetChecker.PaymentRow("pay_4", PREFIX + 4, "pending", null),
                new FleetChecker.PaymentRow("pay_5", PREFIX + 5, "paid", "ch_5"), new FleetChecker.PaymentRow("pay_5b", PREFIX + 5, "pending", null));

        FleetFigures f = FleetChecker.check(records, ledger, rows, PREFIX, HISTORY);

        assertThat(f.chargedTwice()).isEqualTo(1);
        assertThat(f.okWithoutCharge()).isEqualTo(1);
        assertThat(f.bodiesDiffer()).isEqualTo(1);
        assertThat(f.chargeNotOnRow()).as("pay_2 (no charge) and pay_4 (row pending)").isEqualTo(2);
        assertThat(f.twoRowsPerKey()).as("payments 3 and 5").isEqualTo(2);
        assertThat(f.unaskedCharges()).isEqualTo(1);
        assertThat(f.gaveUp()).isEqualTo(1);
        assertThat(f.unconfirmed()).isEqualTo(1);
        assertThat(f.violations()).isEqualTo(8);
    }

    @Test
    void a500IsAMustBeZeroFigureEvenWhenTheRetryGotThe201() {
        PaymentRecord paid = record(1);
        paid.add(failed(500));
        paid.add(failed(503));
        paid.add(ok(0, body("pay_1", "ch_1"), 1_000));

        FleetFigures f = FleetChecker.check(List.of(paid), List.of(charge("ch_1", 1)),
                List.of(new FleetChecker.PaymentRow("pay_1", PREFIX + 1, "paid", "ch_1")), PREFIX, HISTORY);

        assertThat(f.answered500()).as("a client reads a 500 as final").isEqualTo(1);
        assertThat(f.violations()).as("the 500 alone").isEqualTo(1);
    }

    @Test
    void theNemesisPlanHasEveryFaultOfTheSettingsInASeededOrder() {
        FleetSettings settings = FleetSettings.defaults();
        List<String> first = Nemesis.plan(settings, new Random(7));
        List<String> second = Nemesis.plan(settings, new Random(7));

        assertThat(first).hasSize(settings.faults()).isEqualTo(second);
        assertThat(first).containsAll(NemesisEvent.FAULT_KINDS);
        FleetSettings longRun = FleetSettings.longRun();
        assertThat(longRun.payments()).isEqualTo(10_000);
        assertThat(longRun.kills()).isGreaterThanOrEqualTo(20);
        assertThat(longRun.pauses()).isGreaterThanOrEqualTo(20);
        assertThat(longRun.databaseFaults()).isGreaterThanOrEqualTo(10);
        assertThatThrownBy(() -> settings.withInstances(1)).hasMessageContaining("at least 2 instances");
        assertThatThrownBy(() -> settings.withPayments(0)).hasMessageContaining("payments must be at least 1");
    }
}
