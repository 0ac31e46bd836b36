package dev.idem.demo.lab;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;

/**
 * Injects a fleet's faults: a fixed number of each kind ({@link FleetSettings}), in an order and at
 * instants drawn from the row's seed, spread over the traffic; every one is logged on the fleet's
 * timeline. Bounded in count (the plan) and in time (nothing starts after {@link #stop}).
 *
 * <p>A pause (SIGSTOP) lasts {@link #PAUSE_MILLIS}, longer than the services' 2 s lease, so another
 * instance takes the paused one's keys over and the paused one's late writes meet the fence.
 */
final class Nemesis implements AutoCloseable {
    static final long PAUSE_MILLIS = 5_000;
    static final long BLACKHOLE_MILLIS = 3_000;
    static final long POOL_PRESSURE_MILLIS = 4_000;
    static final long GATEWAY_HOLD_MILLIS = 2_500;
    static final long AVAILABILITY_WAIT_MILLIS = 60_000;

    private final Fleet fleet;
    private final Random random;
    private final java.util.concurrent.ScheduledThreadPoolExecutor scheduler = new java.util.concurrent.ScheduledThreadPoolExecutor(4,
            runnable -> {
                Thread thread = new Thread(runnable, "fleet-nemesis");
                thread.setDaemon(true);
                return thread;
            });
    private volatile boolean stopped;

    Nemesis(Fleet fleet, long seed) {
        this.fleet = fleet;
        this.random = new Random(seed);
    }

    /** The faults of {@code settings}, shuffled by the seed. */
    static List<String> plan(FleetSettings settings, Random random) {
        List<String> kinds = new ArrayList<>();
        kinds.addAll(Collections.nCopies(settings.kills(), "sigkill"));
        kinds.addAll(Collections.nCopies(settings.pauses(), "sigstop"));
        kinds.addAll(Collections.nCopies(settings.terminations(), "pg-terminate"));
        kinds.addAll(Collections.nCopies(settings.blackholes(), "pg-blackhole"));
        kinds.addAll(Collections.nCopies(settings.poolPressures(), "pool-pressure"));
        kinds.addAll(Collections.nCopies(settings.gatewayLatencies(), "gateway-latency"));
        Collections.shuffle(kinds, random);
        return kinds;
    }

    /** Schedules every fault of the plan over {@code trafficMillis}, each in its own slot with a jitter inside it. */
    void start(FleetSettings settings, long trafficMillis) {
        List<String> plan = plan(settings, random);
        if (plan.isEmpty()) {
            return;
        }
        long slot = Math.max(1, trafficMillis / plan.size());
        for (int i = 0; i < plan.size(); i++) {
            String kind = plan.get(i);
            long at = i * slot + (long) (random.nextDouble() * slot * 0.8) + slot / 10;
            long pick = random.nextLong();
            scheduler.schedule(() -> inject(kind, new Random(pick)), at, TimeUnit.MILLISECONDS);
        }
    }

    private void inject(String kind, Random pick) {
        if (stopped) {
            return;
        }
        try {
            switch (kind) {
                case "sigkill" -> onInstance(kind, pick, this::kill);
                case "sigstop" -> onInstance(kind, pick, this::pause);
                case "pg-terminate" -> fleet.record(kind, "postgresql", fleet.terminateConnections() + " connections of the fleet terminated");
                case "pg-blackhole" -> fleet.record(kind, "postgresql", fleet.blackholePostgres(BLACKHOLE_MILLIS)
                        ? "nothing forwarded to or from PostgreSQL for " + BLACKHOLE_MILLIS + " ms" : "the proxy did not take the blackhole");
                case "pool-pressure" -> onInstance(kind, pick, instance -> fleet.record(kind, instance.label(),
                        fleet.poolPressure(instance, POOL_PRESSURE_MILLIS) ? "handlers hold a pool connection each for "
                                + POOL_PRESSURE_MILLIS + " ms" : "the instance did not take the fault"));
                case "gateway-latency" -> fleet.record(kind, "card-gateway", fleet.holdGateway(GATEWAY_HOLD_MILLIS)
                        ? "gateway traffic held for " + GATEWAY_HOLD_MILLIS + " ms" : "the proxy did not take the hold");
                default -> throw new IllegalArgumentException("unknown fault " + kind);
            }
        } catch (Exception e) {
            fleet.record(kind, "-", "failed: " + e.getClass().getSimpleName() + ": " + e.getMessage());
        }
    }

    /**
     * On an instance that is up, drawn by {@code pick}. A SIGKILL or SIGSTOP waits (up to
     * {@link #AVAILABILITY_WAIT_MILLIS}) until at least two instances are up, so the fleet keeps one
     * serving: the nemesis tests exactly-once under faults, not a whole outage. If none is up then, any.
     */
    private void onInstance(String kind, Random pick, java.util.function.Consumer<Fleet.Instance> fault) {
        if (kind.equals("sigkill") || kind.equals("sigstop")) {
            long deadline = System.nanoTime() + AVAILABILITY_WAIT_MILLIS * 1_000_000;
            while (!stopped && System.nanoTime() < deadline && fleet.instances().stream().filter(Fleet.Instance::up).count() < 2) {
                ChildProcess.sleep(100);
            }
        }
        List<Fleet.Instance> up = fleet.instances().stream().filter(Fleet.Instance::up).toList();
        List<Fleet.Instance> from = up.isEmpty() ? fleet.instances() : up;
        fault.accept(from.get(pick.nextInt(from.size())));
    }

    private void kill(Fleet.Instance instance) {
        ChildProcess process = instance.process;
        process.kill();
        fleet.record("sigkill", instance.label(), "SIGKILL pid " + process.pid());
    }

    private void pause(Fleet.Instance instance) {
        ChildProcess process = instance.process;
        if (!Signals.send("STOP", process.pid())) {
            fleet.record("sigstop", instance.label(), "SIGSTOP pid " + process.pid() + " failed");
            return;
        }
        instance.paused = true;
        fleet.record("sigstop", instance.label(), "SIGSTOP pid " + process.pid() + " for " + PAUSE_MILLIS + " ms (lease 2 s)");
        scheduler.schedule(() -> resume(instance, process), PAUSE_MILLIS, TimeUnit.MILLISECONDS);
    }

    private void resume(Fleet.Instance instance, ChildProcess process) {
        Signals.send("CONT", process.pid());
        instance.paused = false;
        fleet.record("sigcont", instance.label(), "SIGCONT pid " + process.pid());
    }

    /** No new fault from now on; a paused instance is continued at its time (or by the fleet's close). */
    void stop() {
        stopped = true;
    }

    /** Cancels what is still planned and continues an instance that is still paused. */
    @Override
    public void close() {
        stopped = true;
        scheduler.shutdownNow();
        try {
            scheduler.awaitTermination(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        for (Fleet.Instance instance : fleet.instances()) {
            if (instance.paused) {
                resume(instance, instance.process);
            }
        }
    }
}
