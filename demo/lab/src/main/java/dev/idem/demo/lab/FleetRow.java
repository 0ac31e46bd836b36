package dev.idem.demo.lab;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The fleet: several payments-service instances on one PostgreSQL database behind a round-robin
 * balancer, under a nemesis that mixes SIGKILLs, pauses past the lease, terminated database
 * connections, a blackholed database, pool pressure and gateway latency, while clients pay at a
 * steady rate with one key per payment. The {@link FleetChecker} then counts, over the whole history,
 * every way exactly-once could have broken. The control side is a deliberately broken fleet (each
 * instance with its own in-memory store) that the checker must flag.
 */
final class FleetRow {
    static final PatternRow ROW = new PatternRow("fleet", Group.FLEET,
            "SIGKILL, SIGSTOP past the lease, DB connections killed, DB blackhole, pool pressure, gateway latency; "
                    + (int) (Fleet.DROP_RESPONSE * 100) + "% responses lost",
            List.of(Side.naive("control: 2 instances, each its own in-memory store"), Side.idempotent("idem: one JDBC store on PostgreSQL")),
            "payments", "must-be-0 findings (charged twice, 2xx without charge, bodies differ, charge not on its row, "
                    + "two rows for one key, charges nobody asked for, 500s)", PatternRow.Needs.POSTGRESQL, FleetRow::run);

    static final int CONTROL_INSTANCES = 2;

    private FleetRow() {
    }

    static PatternResult run(PatternRow row, RowContext context) throws Exception {
        StringBuilder why = new StringBuilder();
        Optional<String> postgres = context.postgres(why);
        if (postgres.isEmpty()) {
            return PatternResult.skipped(row, "the fleet needs PostgreSQL: " + why);
        }
        FleetSettings settings = context.settings().fleet();
        long started = System.nanoTime();
        // Two instances are enough to show what forgetting keys does, and start sooner than N.
        FleetSettings control = new FleetSettings(CONTROL_INSTANCES, settings.controlPayments(), settings.perSecond(),
                settings.controlPayments(), 0, 0, 0, 0, 0, 0, "control", settings.coalesce());
        SideResult broken = side(row.sides().get(0), context, postgres.get(), control, ServerVariant.MEMORY_STORE, "control");
        SideResult correct = side(row.sides().get(1), context, postgres.get(), settings, ServerVariant.CORRECT, "idem");
        FleetFigures f = correct.fleet();
        String note = String.format("%d instances on one PostgreSQL behind a round-robin balancer (%d%% requests, %d%% responses lost); "
                        + "nemesis: %d SIGKILLs, %d pauses of %d s, %d DB connection kills, %d DB blackholes, %d pool pressures, "
                        + "%d gateway holds; %d restarts by the supervisor; takeovers %d, leases lost %d; the control fleet (2 instances) has no "
                        + "faults but the balancer's", settings.instances(), (int) (Fleet.DROP_REQUEST * 100), (int) (Fleet.DROP_RESPONSE * 100),
                f.count("sigkill"), f.count("sigstop"), Nemesis.PAUSE_MILLIS / 1000, f.count("pg-terminate"), f.count("pg-blackhole"),
                f.count("pool-pressure"), f.count("gateway-latency"), f.restarts(), f.counter("takeovers"), f.counter("leasesLost"));
        return new PatternResult(row, List.of(broken, correct), note, (System.nanoTime() - started) / 1_000_000, null);
    }

    /** One fleet: start it, drive its traffic under its nemesis, check its history, stop it. */
    private static SideResult side(Side side, RowContext context, String postgres, FleetSettings settings, ServerVariant variant,
                                   String name) throws InterruptedException, SQLException {
        long started = System.nanoTime();
        String cardPrefix = "lab-" + context.runTag() + "-fleet-" + name + "-";
        List<PaymentRecord> records = FleetClients.payments(settings.payments(), cardPrefix, new Random(context.seed()));
        try (Fleet fleet = new Fleet(context, context.components(), name, variant, settings, postgres).start()) {
            fleet.beginTraffic();
            long trafficMillis = settings.payments() * 1_000L / settings.perSecond();
            AtomicInteger settled = new AtomicInteger();
            try (Nemesis nemesis = new Nemesis(fleet, context.seed() * 31 + name.hashCode())) {
                nemesis.start(settings, trafficMillis);
                new FleetClients(fleet.balancerPort(), fleet.startNanos()).run(records, settings.perSecond(), context.seed(), () -> {
                    int done = settled.incrementAndGet();
                    if (done % Math.max(1, settings.payments() / 10) == 0) {
                        context.event(String.format("fleet %s: %d of %d payments settled", name, done, settings.payments()));
                    }
                });
                nemesis.stop();
            }
            List<LedgerCharge> ledger = settledLedger(fleet, cardPrefix);
            FleetFigures figures = FleetChecker.check(records, ledger, fleet.paymentRows(), cardPrefix,
                    new FleetChecker.History(settings.instances(), fleet.counters(), fleet.restarts(), fleet.timeline(), fleet.coalescing()));
            context.event(String.format("fleet %s: %d payments, %d charges, %d must-be-0 findings, %d gave up", name, figures.payments(),
                    figures.charges(), figures.violations(), figures.gaveUp()));
            return new SideResult(side, figures.payments(), sink(figures), figures.violations(), (System.nanoTime() - started) / 1_000_000,
                    Double.NaN, figures);
        }
    }

    /** The fleet's charges, read once no new one has appeared for a while (an instance may finish a charge late). */
    static List<LedgerCharge> settledLedger(Fleet fleet, String cardPrefix) {
        List<LedgerCharge> previous = null;
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (true) {
            List<LedgerCharge> current = new ArrayList<>(fleet.ledger().stream().filter(c -> c.card().startsWith(cardPrefix)).toList());
            if (previous != null && previous.size() == current.size() || System.nanoTime() > deadline) {
                return current;
            }
            previous = current;
            ChildProcess.sleep(1_000);
        }
    }

    private static String sink(FleetFigures f) {
        return String.format("%d charges; %d charged 2+, %d 2xx unpaid, %d gave up", f.charges(), f.chargedTwice(), f.okWithoutCharge(),
                f.gaveUp());
    }
}
