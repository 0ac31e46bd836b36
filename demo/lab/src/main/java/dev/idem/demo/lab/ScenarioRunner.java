package dev.idem.demo.lab;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Runs one scenario on a {@link Stack}: starts what it needs, lets its clients pay through the fault
 * proxy, disrupts the service as the fault says, then reads the gateway's ledger and counts.
 */
final class ScenarioRunner {
    /** A request older than this is past the gateway's charge when the gateway answers 250 ms late. */
    private static final long KILL_WHEN_IN_FLIGHT_MILLIS = 120;
    private static final List<String> CURRENCIES = List.of("EUR", "USD", "GBP", "RON", "CHF");
    /** Beyond a key's retention, before the late retries: the store's clock and the lab's need not tick together. */
    private static final java.time.Duration PAST_RETENTION = java.time.Duration.ofSeconds(1);
    /**
     * How long the lab leaves abandoned payments to the service before it looks: the service's 2 s
     * lease, the completer's 1 s delay and half-second poll, a restart, and room for a loaded machine.
     */
    private static final java.time.Duration ABANDONED_WAIT = java.time.Duration.ofSeconds(12);
    /** How long the ledger consumer may take to apply the last events after the last payment. */
    private static final java.time.Duration CONSUMER_CATCH_UP = java.time.Duration.ofSeconds(120);

    private final Stack stack;
    private final LabSettings settings;
    private final Progress progress;
    private final String runTag;
    private final InFlight inFlight = new InFlight();
    /** The service is down between a SIGKILL and its restart (the give-up rows' clients wait for it to be up before they start). */
    private volatile boolean restarting;

    ScenarioRunner(Stack stack, LabSettings settings, Progress progress, String runTag) {
        this.stack = stack;
        this.settings = settings;
        this.progress = progress;
        this.runTag = runTag;
    }

    ScenarioResult run(Scenario scenario, long seed) throws InterruptedException {
        long started = System.nanoTime();
        stack.ensureGateway(scenario.fault().gatewayFaults(), scenario.fault().keyRetention());
        String topic = null;
        if (scenario.messaging()) {
            topic = "payment-events-" + scenario.id() + "-" + runTag;
            stack.ensureTopic(topic);
        }
        stack.ensureService(scenario.variant(), topic, scenario.fault().keyRetention());
        if (!scenario.messaging()) {
            // A messaging scenario skips it: its event would be one more in the topic, and the consumer's
            // crash points count records, so a crash could fall on a batch that is the warm-up alone.
            warmUp();
        }
        int startsBefore = stack.serviceStarts();
        LedgerConsumerRun consumer = scenario.messaging()
                ? stack.startLedger(scenario.id(), scenario.consumer(), topic, settings.kills(), recordsPerConsumerLife()) : null;
        List<PaymentRecord> records = new ArrayList<>();
        Map<String, Long> proxyStats;
        Driven driven;
        LedgerFigures ledger = null;
        try {
            Stack.ProxyProcess proxy = stack.startProxy(scenario.fault(), seed, scenario.id());
            try {
                List<List<Sender>> senders = senders(scenario, seed, proxy.port(), records, started);
                driven = drive(scenario, senders, records);
                proxyStats = proxy.stats();
            } finally {
                proxy.stop();
            }
            if (consumer != null) {
                progress.event("waiting for the ledger consumer to catch up with " + topic);
                ledger = consumer.awaitCaughtUp(cards(records, false), cards(records, true), CONSUMER_CATCH_UP);
            }
        } finally {
            if (consumer != null) {
                consumer.close();
            }
        }
        List<LedgerCharge> charges = settledCharges(records);
        Figures figures = Tally.count(records, charges);
        boolean asExpected = driven.abandonment() == null ? Tally.asExpected(scenario.expectation(), figures, ledger)
                : Tally.asExpected(scenario.expectation(), figures, driven.abandonment());
        return new ScenarioResult(scenario, figures, asExpected, proxyStats, driven.kills(), stack.serviceStarts() - startsBefore,
                (System.nanoTime() - started) / 1_000_000, List.copyOf(records), charges, ledger, driven.abandonment());
    }

    /** What driving a scenario's traffic did: the SIGKILLs, and for a give-up row what became of the abandoned payments. */
    private record Driven(int kills, Abandonment abandonment) {
        Driven(int kills) {
            this(kills, null);
        }
    }

    /**
     * Records the consumer writes in one life before its crash point: the payments spread over the
     * planned kills and a last life, so every kill happens while events still flow.
     */
    private int recordsPerConsumerLife() {
        return Math.max(1, settings.payments() / (settings.kills() + 1));
    }

    /** The cards of the payments, or of the confirmed ones only. */
    private static Set<String> cards(List<PaymentRecord> records, boolean confirmedOnly) {
        Set<String> cards = new HashSet<>();
        for (PaymentRecord record : records) {
            if (!confirmedOnly || record.confirmed()) {
                cards.add(record.payment().card());
            }
        }
        return cards;
    }

    /** One payment straight to the service, so the first measured requests do not pay for class loading. */
    private void warmUp() {
        Payment warmUp = new Payment("warm-up", 100, "EUR", "lab-" + runTag + "-warm-up-" + UUID.randomUUID().toString().substring(0, 8));
        LabHttp.exchange(stack.servicePort(), "POST", PaymentsServiceContract.PAYMENTS_PATH,
                Map.of("Content-Type", "application/json", PaymentsServiceContract.KEY_HEADER, UUID.randomUUID().toString()),
                PaymentsServiceContract.body(warmUp), Sender.READ_TIMEOUT);
    }

    /** The scenario's payments, each with its senders (one, or 2-8 for a double-click). */
    private List<List<Sender>> senders(Scenario scenario, long seed, int port, List<PaymentRecord> records, long started) {
        Random random = new Random(seed);
        List<List<Sender>> all = new ArrayList<>();
        Fault fault = scenario.fault();
        for (int i = 1; i <= settings.payments(); i++) {
            String id = String.format("%s-%03d", scenario.id(), i);
            Payment payment = new Payment(id, 100 + random.nextInt(99_900), CURRENCIES.get(random.nextInt(CURRENCIES.size())),
                    "lab-" + runTag + "-" + id);
            PaymentRecord record = new PaymentRecord(payment);
            records.add(record);
            String key = UUID.randomUUID().toString();
            int count = fault.minSenders() + random.nextInt(fault.maxSenders() - fault.minSenders() + 1);
            List<Sender> group = new ArrayList<>();
            for (int s = 0; s < count; s++) {
                group.add(new Sender(record, s, scenario.strategy(), key, port, inFlight, started, random.nextLong()));
            }
            all.add(group);
        }
        return all;
    }

    /** Sends every payment, disrupting the service as the fault says. */
    private Driven drive(Scenario scenario, List<List<Sender>> payments, List<PaymentRecord> records) throws InterruptedException {
        AtomicInteger settled = new AtomicInteger();
        Runnable tick = () -> progress.payments(settled.get(), payments.size(), records.stream().mapToInt(PaymentRecord::requestsSent).sum());
        switch (scenario.fault().disruption()) {
            case RESTART_BEFORE_RETRIES -> {
                sendAll(payments, 1, settled, tick);
                stack.restartService();
                settled.set(0);
                sendAll(payments, Sender.MAX_ATTEMPTS, settled, tick);
                return new Driven(0);
            }
            case KILL_DURING_TRAFFIC -> {
                return new Driven(sendWhileKilling(() -> sendAll(payments, Sender.MAX_ATTEMPTS, settled, tick)));
            }
            case KILL_THEN_GIVE_UP -> {
                // One attempt each: a client whose request died with the service gives up and never comes back
                // by itself. A client starts only while the service is up, so those that give up are the ones
                // whose request was in it when it was killed, not every one that came while it restarted.
                int kills = sendWhileKilling(() -> eachPayment(payments, settled, tick, group -> {
                    awaitServiceUp();
                    group.get(0).run(1);
                }));
                List<List<Sender>> abandoned = payments.stream().filter(group -> !group.get(0).record().confirmed()).toList();
                progress.event(abandoned.size() + " clients gave up; waiting " + ABANDONED_WAIT.toSeconds()
                        + " s (the lease, then the completer's delay), then looking at what the service recorded");
                long waitStarted = System.nanoTime();
                Unrecorded looked = awaitRecorded(abandoned);
                long waited = (System.nanoTime() - waitStarted) / 1_000_000;
                settled.set(0);
                eachPayment(abandoned, settled, tick, group -> group.get(0).retryLate());
                return new Driven(kills, lateRetries(abandoned, looked, waited));
            }
            case RETRY_AFTER_EXPIRY -> {
                sendAll(payments, Sender.MAX_ATTEMPTS, settled, tick);
                java.time.Duration wait = scenario.fault().keyRetention().plus(PAST_RETENTION);
                progress.event("waiting " + wait.toSeconds() + " s, past the responses' retention, then retrying every payment with its key");
                ChildProcess.sleep(wait.toMillis());
                settled.set(0);
                eachPayment(payments, settled, tick, group -> group.get(0).retryLate());
                return new Driven(0);
            }
            default -> {
                sendAll(payments, Sender.MAX_ATTEMPTS, settled, tick);
                return new Driven(0);
            }
        }
    }

    /** Waits while {@link #killWhileBusy} has the service down (killed, not yet restarted). */
    private void awaitServiceUp() {
        while (restarting) {
            ChildProcess.sleep(20);
        }
    }

    /** The payments' traffic of a scenario, sent while the service is being killed. */
    private interface Traffic {
        void send() throws InterruptedException;
    }

    /** Sends {@code traffic} while {@link #killWhileBusy} SIGKILLs the service; returns the kills. */
    private int sendWhileKilling(Traffic traffic) throws InterruptedException {
        AtomicBoolean finished = new AtomicBoolean();
        AtomicInteger kills = new AtomicInteger();
        Thread killer = new Thread(() -> killWhileBusy(finished, kills), "lab-killer");
        killer.setDaemon(true);
        killer.start();
        try {
            traffic.send();
        } finally {
            finished.set(true);
            killer.join();
        }
        return kills.get();
    }

    /** The abandoned payments the gateway charged, and how many of them the service had not recorded as paid, when the lab looked. */
    private record Unrecorded(int charged, int unrecorded) {
    }

    /**
     * Waits up to {@link #ABANDONED_WAIT} for the service to record every abandoned payment the gateway
     * charged, looking every half second, and returns what it saw last. A service that finishes them
     * (a completer) ends the wait early, once two looks in a row find them all recorded; one that does
     * not is looked at once the wait is over.
     */
    private Unrecorded awaitRecorded(List<List<Sender>> abandoned) {
        long deadline = System.nanoTime() + ABANDONED_WAIT.toNanos();
        boolean recordedBefore = false;
        while (true) {
            Unrecorded now = unrecorded(abandoned);
            boolean recorded = now.unrecorded() == 0 && now.charged() > 0;
            // Twice in a row: the service stores its answer just after it records the payment, and a
            // late retry in between would find the key still in progress.
            if (recorded && recordedBefore || System.nanoTime() > deadline) {
                return now;
            }
            recordedBefore = recorded;
            ChildProcess.sleep(500);
        }
    }

    private Unrecorded unrecorded(List<List<Sender>> abandoned) {
        Set<String> chargedCards = new HashSet<>();
        stack.ledger().forEach(charge -> chargedCards.add(charge.card()));
        Map<String, String> states = stack.paymentStates();
        int charged = 0;
        int unrecorded = 0;
        for (List<Sender> group : abandoned) {
            String card = group.get(0).record().payment().card();
            if (chargedCards.contains(card)) {
                charged++;
                unrecorded += PaymentsServiceContract.PAID.equals(states.get(card)) ? 0 : 1;
            }
        }
        return new Unrecorded(charged, unrecorded);
    }

    /** How the late retry (the last attempt) of each abandoned payment was answered. */
    private static Abandonment lateRetries(List<List<Sender>> abandoned, Unrecorded looked, long waitedMillis) {
        int replayed = 0;
        int ran = 0;
        for (List<Sender> group : abandoned) {
            List<Attempt> attempts = group.get(0).record().attempts();
            Attempt late = attempts.get(attempts.size() - 1);
            if (late.succeeded() && late.replayed()) {
                replayed++;
            } else if (late.succeeded()) {
                ran++;
            }
        }
        return new Abandonment(abandoned.size(), looked.charged(), looked.unrecorded(), waitedMillis, replayed, ran,
                abandoned.size() - replayed - ran);
    }

    /**
     * Kills the service while a request is deep inside it — the gateway has committed its charge and
     * not yet answered — up to the configured number of times. Waiting for the gateway's word, not
     * only for a request's age, aims every kill between the effect and its answer: on a loaded
     * machine a request can be old before it reaches the gateway, and a kill there shows nothing.
     */
    private void killWhileBusy(AtomicBoolean finished, AtomicInteger kills) {
        while (kills.get() < settings.kills() && !finished.get()) {
            if (inFlight.oldestMillis() >= KILL_WHEN_IN_FLIGHT_MILLIS && stack.gatewayAnswersPending() > 0) {
                restarting = true;
                try {
                    stack.killAndRestartService();
                } catch (RuntimeException e) {
                    progress.event("restart after SIGKILL failed: " + e.getMessage());
                    return;
                } finally {
                    restarting = false;
                }
                kills.incrementAndGet();
            } else {
                ChildProcess.sleep(5);
            }
        }
    }

    /** Runs every payment's senders with {@code budget} attempts each, {@code concurrency} payments at a time. */
    private void sendAll(List<List<Sender>> payments, int budget, AtomicInteger settled, Runnable tick) throws InterruptedException {
        ExecutorService clicks = Executors.newCachedThreadPool(daemon("lab-click"));
        try {
            eachPayment(payments, settled, tick, group -> sendTogether(group, budget, clicks));
        } finally {
            clicks.shutdownNow();
        }
    }

    /** What a payment's senders do, on one of the lab's client threads. */
    private interface PaymentTask {
        void run(List<Sender> group) throws Exception;
    }

    /** Runs {@code task} for every payment, {@code concurrency} payments at a time. */
    private void eachPayment(List<List<Sender>> payments, AtomicInteger settled, Runnable tick, PaymentTask task) throws InterruptedException {
        ExecutorService workers = Executors.newFixedThreadPool(settings.concurrency(), daemon("lab-client"));
        try {
            List<Future<?>> done = new ArrayList<>();
            for (List<Sender> group : payments) {
                done.add(workers.submit(() -> {
                    task.run(group);
                    settled.incrementAndGet();
                    tick.run();
                    return null;
                }));
            }
            for (Future<?> future : done) {
                try {
                    future.get();
                } catch (ExecutionException e) {
                    throw new IllegalStateException("a client failed", e.getCause());
                }
            }
        } finally {
            workers.shutdownNow();
        }
        tick.run();
    }

    /** A payment's senders start at the same instant, as two clicks on one button would. */
    private static void sendTogether(List<Sender> group, int budget, ExecutorService clicks) throws Exception {
        if (group.size() == 1) {
            group.get(0).run(budget);
            return;
        }
        CountDownLatch go = new CountDownLatch(1);
        List<Future<?>> running = new ArrayList<>();
        for (Sender sender : group) {
            running.add(clicks.submit(() -> {
                go.await();
                return sender.run(budget);
            }));
        }
        go.countDown();
        for (Future<?> future : running) {
            future.get();
        }
    }

    /**
     * The ledger rows of these payments, read once no new row has appeared for a while: a service may
     * still finish a charge after its client stopped listening.
     */
    private List<LedgerCharge> settledCharges(List<PaymentRecord> records) {
        Set<String> cards = new HashSet<>();
        records.forEach(r -> cards.add(r.payment().card()));
        List<LedgerCharge> previous = null;
        long deadline = System.nanoTime() + 5_000_000_000L;
        while (true) {
            List<LedgerCharge> current = stack.ledger().stream().filter(c -> cards.contains(c.card())).toList();
            if (previous != null && previous.size() == current.size() || System.nanoTime() > deadline) {
                return current;
            }
            previous = current;
            ChildProcess.sleep(300);
        }
    }

    private static java.util.concurrent.ThreadFactory daemon(String prefix) {
        AtomicInteger count = new AtomicInteger();
        return runnable -> {
            Thread thread = new Thread(runnable, prefix + "-" + count.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        };
    }
}
