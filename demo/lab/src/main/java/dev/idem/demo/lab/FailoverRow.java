package dev.idem.demo.lab;

import dev.idem.testing.ReplicatedPostgres;
import dev.idem.testing.ReplicatedPostgres.Replication;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The database fails over under the fleet: payments-service instances on a PostgreSQL primary and
 * its streaming standby (one multi-host URL with {@code targetServerType=primary}, so they follow the
 * new primary without a restart), clients paying at a steady rate with one key per payment. Mid-traffic
 * the standby stops receiving for {@link #CUT_BEFORE_KILL_MILLIS} (a network partition between the
 * servers, or a standby that cannot keep up), then the primary gets SIGKILL while commits are in flight
 * and the standby is promoted. Once every payment has settled, each one answered 2xx is sent again with
 * its key, as a client whose answer was lost would, straight to an instance: an answer that is not a
 * replay of the stored one is an acknowledged record the new primary forgot, and a charge request the
 * gateway gets meanwhile is a charge run again. The naive side replicates asynchronously (the
 * service's store starts with its default durability check, which only warns about that); the idem
 * side synchronously, where the same cut makes commits wait instead of being acknowledged.
 *
 * <p>docs/lab.md, "The failover row"; the figures of a run in docs/stores.md, "Figures from the lab".
 */
final class FailoverRow {
    static final long CUT_BEFORE_KILL_MILLIS = 2_000;
    static final long RESEND_DEADLINE_MILLIS = 45_000;

    static final PatternRow ROW = new PatternRow("failover", Group.FAILOVER,
            "standby cut off " + CUT_BEFORE_KILL_MILLIS / 1000 + " s, primary SIGKILLed, standby promoted",
            List.of(Side.naive("asynchronous replication"), Side.idempotent("synchronous replication")),
            "payments", "acknowledged payments forgotten or charged again, and the fleet's must-be-0 figures", PatternRow.Needs.POSTGRESQL_SERVERS,
            FailoverRow::run);

    private FailoverRow() {
    }

    static PatternResult run(PatternRow row, RowContext context) throws Exception {
        Optional<String> missing = ReplicatedPostgres.unavailableReason();
        if (missing.isPresent()) {
            return PatternResult.skipped(row, "the failover row starts its own PostgreSQL primary and standby: " + missing.get());
        }
        long started = System.nanoTime();
        FleetSettings fleet = context.settings().fleet();
        // No nemesis: the failover is the fault.
        FleetSettings settings = new FleetSettings(fleet.instances(), fleet.payments(), fleet.perSecond(), fleet.payments(), 0, 0, 0, 0, 0,
                0, "failover", fleet.coalesce());
        SideResult async = side(row.sides().get(0), context, settings, Replication.ASYNCHRONOUS);
        SideResult sync = side(row.sides().get(1), context, settings, Replication.SYNCHRONOUS);
        String note = String.format("%d instances; the primary killed %.1f s into %.1f s of traffic", settings.instances(),
                killAtMillis(settings) / 1000.0, trafficMillis(settings) / 1000.0);
        return new PatternResult(row, List.of(async, sync), note, (System.nanoTime() - started) / 1_000_000, null);
    }

    static long trafficMillis(FleetSettings settings) {
        return settings.payments() * 1_000L / settings.perSecond();
    }

    static long killAtMillis(FleetSettings settings) {
        return Math.max(CUT_BEFORE_KILL_MILLIS + 500, trafficMillis(settings) / 2);
    }

    private static SideResult side(Side side, RowContext context, FleetSettings settings, Replication replication) throws Exception {
        long started = System.nanoTime();
        String mode = replication == Replication.SYNCHRONOUS ? "synchronous" : "asynchronous";
        String name = "failover-" + (replication == Replication.SYNCHRONOUS ? "sync" : "async");
        String cardPrefix = "lab-" + context.runTag() + "-fleet-" + name + "-";
        List<PaymentRecord> records = FleetClients.payments(settings.payments(), cardPrefix, new Random(context.seed()));
        context.event("failover " + mode + ": starting a PostgreSQL primary and a streaming standby");
        try (ReplicatedPostgres pair = ReplicatedPostgres.start(replication);
             Fleet fleet = new Fleet(context, context.components(), name, ServerVariant.CORRECT, settings, pair.failoverUrl(), true).start()) {
            fleet.beginTraffic();
            Switch failover = new Switch(pair, fleet, killAtMillis(settings));
            Thread switcher = new Thread(failover::run, "failover-switch");
            switcher.setDaemon(true);
            switcher.start();
            AtomicInteger settled = new AtomicInteger();
            new FleetClients(fleet.balancerPort(), fleet.startNanos()).run(records, settings.perSecond(), context.seed(), () -> {
                int done = settled.incrementAndGet();
                if (done % Math.max(1, settings.payments() / 5) == 0) {
                    context.event(String.format("failover %s: %d of %d payments settled", mode, done, settings.payments()));
                }
            });
            switcher.join(TimeUnit.SECONDS.toMillis(120));
            if (failover.failure != null) {
                throw new IllegalStateException("the failover did not complete: " + failover.failure.getMessage(), failover.failure);
            }
            // The clients' second round: every payment answered 2xx, sent again with its key, straight to an instance (past the
            // balancer, which would lose some answers: the client sees each one). What reaches the gateway meanwhile is a charge
            // run again (an instance still finishing a first-round request has finished once the gateway's counts settle).
            Map<String, Long> callsBefore = settledGatewayCalls(fleet, cardPrefix);
            Map<PaymentRecord, Attempt> resent = new FleetClients(fleet.instances().get(0).port, fleet.startNanos())
                    .resendConfirmed(records, RESEND_DEADLINE_MILLIS);
            Map<String, Long> callsAfter = settledGatewayCalls(fleet, cardPrefix);
            int chargedAgain = (int) callsAfter.entrySet().stream().filter(e -> e.getValue() > callsBefore.getOrDefault(e.getKey(), 0L)).count();
            int lost = 0;
            for (Map.Entry<PaymentRecord, Attempt> e : resent.entrySet()) {
                String first = e.getKey().attempts().stream().filter(Attempt::succeeded).findFirst().orElseThrow().body();
                Attempt again = e.getValue();
                if (!(again.succeeded() && again.replayed() && first.equals(again.body()))) {
                    lost++;
                }
            }
            List<LedgerCharge> ledger = FleetRow.settledLedger(fleet, cardPrefix);
            FleetFigures figures = FleetChecker.check(records, ledger, fleet.paymentRows(), cardPrefix,
                    new FleetChecker.History(settings.instances(), fleet.counters(), fleet.restarts(), fleet.timeline(), fleet.coalescing()));
            FailoverFigures failoverFigures = new FailoverFigures(mode, failover.lagBytes, resent.size(), lost, chargedAgain,
                    figures.failures().getOrDefault("503", 0), failover.switchMillis, firstOkAfter(records, failover.killedAtMillis));
            context.event(String.format("failover %s: lag at the kill %,d bytes; %d of %d acknowledged payments lost; %d charged again; "
                    + "%d charged 2+; %d must-be-0 findings", mode, failover.lagBytes, lost, resent.size(), chargedAgain, figures.chargedTwice(),
                    figures.violations()));
            String sink = String.format("%d of %d acked lost", lost, resent.size());
            int wrong = figures.violations() + lost + chargedAgain;
            return new SideResult(side, figures.payments(), sink, wrong, (System.nanoTime() - started) / 1_000_000,
                    Double.NaN, figures, failoverFigures);
        }
    }

    /**
     * The charge requests the gateway has answered for each of the fleet's cards (its charges and its
     * replays), once they have not changed for two seconds (at most 20 s).
     */
    private static Map<String, Long> settledGatewayCalls(Fleet fleet, String cardPrefix) {
        Map<String, Long> previous = null;
        long deadline = System.nanoTime() + 20_000_000_000L;
        while (true) {
            Map<String, Long> calls = new java.util.HashMap<>();
            Map<String, String> cardByKey = new java.util.HashMap<>();
            for (LedgerCharge charge : fleet.ledger()) {
                if (charge.card().startsWith(cardPrefix)) {
                    calls.merge(charge.card(), 1L, Long::sum);
                    cardByKey.put(charge.key(), charge.card());
                }
            }
            fleet.gatewayReplays().forEach((key, n) -> {
                String card = cardByKey.get(key);
                if (card != null) {
                    calls.merge(card, n, Long::sum);
                }
            });
            if (calls.equals(previous) || System.nanoTime() > deadline) {
                return calls;
            }
            previous = calls;
            ChildProcess.sleep(2_000);
        }
    }

    /** From the kill until the first 2xx of a request sent after it, or -1. */
    private static long firstOkAfter(List<PaymentRecord> records, long killedAtMillis) {
        return records.stream().flatMap(r -> r.attempts().stream()).filter(a -> a.succeeded() && a.startMillis() >= killedAtMillis)
                .mapToLong(a -> a.startMillis() + a.durationMicros() / 1000 - killedAtMillis).min().orElse(-1);
    }

    /** Cuts the standby off, kills the primary and promotes the standby at their times, logging each on the fleet's timeline. */
    private static final class Switch {
        private final ReplicatedPostgres pair;
        private final Fleet fleet;
        private final long killAtMillis;
        volatile long lagBytes = -1;
        volatile long killedAtMillis = Long.MAX_VALUE;
        volatile long switchMillis = -1;
        volatile RuntimeException failure;

        Switch(ReplicatedPostgres pair, Fleet fleet, long killAtMillis) {
            this.pair = pair;
            this.fleet = fleet;
            this.killAtMillis = killAtMillis;
        }

        void run() {
            try {
                sleepUntil(killAtMillis - CUT_BEFORE_KILL_MILLIS);
                pair.pauseStandby();
                fleet.record("standby-cut", "standby", "stops receiving the primary's write-ahead log");
                sleepUntil(killAtMillis);
                lagBytes = pair.lagBytes();
                long killed = System.nanoTime();
                pair.killPrimary();
                killedAtMillis = (killed - fleet.startNanos()) / 1_000_000;
                fleet.record("sigkill", "primary", String.format("SIGKILL; the standby was %,d bytes of WAL behind", lagBytes));
                pair.promoteStandby();
                switchMillis = (System.nanoTime() - killed) / 1_000_000;
                fleet.record("promote", "standby", "promoted: accepts writes " + switchMillis + " ms after the kill");
            } catch (RuntimeException e) {
                failure = e;
                fleet.record("failover", "-", "failed: " + e.getMessage());
            }
        }

        private void sleepUntil(long millisSinceStart) {
            long wait = fleet.startNanos() + millisSinceStart * 1_000_000 - System.nanoTime();
            if (wait > 0) {
                ChildProcess.sleep(wait / 1_000_000);
            }
        }
    }
}
