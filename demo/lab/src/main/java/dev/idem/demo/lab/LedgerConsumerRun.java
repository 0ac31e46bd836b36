package dev.idem.demo.lab;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * One messaging scenario's ledger consumer, across its lives: started with {@code --crash-after N}
 * while kills remain, so it halts right after a database commit and before the offset commit; a
 * watcher restarts it on the same data each time, and the last life runs without a crash point. The
 * broker then delivers the batch of every crash again: what happens to it is what the scenario shows.
 */
final class LedgerConsumerRun implements AutoCloseable {
    /** The consumer's exit code at its crash point ({@code Runtime.halt(3)}). */
    static final int CRASH_EXIT_CODE = 3;
    private static final Duration START = Duration.ofSeconds(60);
    private static final JsonMapper JSON = JsonMapper.builder().build();

    private final JavaApp app;
    private final int port;
    private final List<String> args;
    private final boolean resetFirst;
    private final Path log;
    private final int plannedKills;
    private final int crashAfter;
    private final Consumer<String> events;
    private final AtomicInteger kills = new AtomicInteger();
    private final AtomicInteger starts = new AtomicInteger();
    private final Thread watcher;
    private volatile ChildProcess process;
    private volatile boolean closing;
    private volatile String failure;

    private LedgerConsumerRun(JavaApp app, int port, List<String> args, boolean resetFirst, Path log, int plannedKills, int crashAfter,
                              Consumer<String> events) {
        this.app = app;
        this.port = port;
        this.args = List.copyOf(args);
        this.resetFirst = resetFirst;
        this.log = log;
        this.plannedKills = plannedKills;
        this.crashAfter = crashAfter;
        this.events = events;
        this.watcher = new Thread(this::watch, "lab-ledger-watcher");
        this.watcher.setDaemon(true);
    }

    /**
     * Starts the consumer and its watcher; returns once the consumer answers.
     *
     * @param resetFirst whether the first start empties the ledger ({@code --reset}; a restart never does)
     * @param crashAfter records written per life before the crash point is taken (at least 1)
     */
    static LedgerConsumerRun start(JavaApp app, int port, List<String> args, boolean resetFirst, Path log, int kills, int crashAfter,
                                   Consumer<String> events) {
        LedgerConsumerRun run = new LedgerConsumerRun(app, port, args, resetFirst, log, kills, Math.max(1, crashAfter), events);
        run.startLife();
        run.watcher.start();
        return run;
    }

    private void startLife() {
        List<String> lifeArgs = new ArrayList<>(args);
        if (resetFirst && starts.get() == 0) {
            lifeArgs.add("--reset");
        }
        if (kills.get() < plannedKills) {
            lifeArgs.addAll(List.of("--crash-after", Integer.toString(crashAfter)));
        }
        ChildProcess started = ChildProcess.start(app, lifeArgs, log);
        process = started;
        started.awaitReady(port, "/health", START);
        starts.incrementAndGet();
    }

    /** Restarts the consumer each time it halts at its crash point; any other exit ends the run with a failure. */
    private void watch() {
        while (!closing) {
            ChildProcess current = process;
            if (!current.alive() && !closing) {
                int exit = current.exitCode();
                if (exit != CRASH_EXIT_CODE) {
                    failure = "the ledger consumer exited with " + exit + "; see " + log;
                    return;
                }
                kills.incrementAndGet();
                events.accept("ledger consumer halted after its database commit, before its offset commit; restarting");
                try {
                    startLife();
                } catch (RuntimeException e) {
                    failure = "the ledger consumer did not restart: " + e.getMessage();
                    return;
                }
            }
            ChildProcess.sleep(20);
        }
    }

    /**
     * Waits until the consumer has caught up with its topic (lag 0, and an entry for every paid card,
     * twice in a row), then counts the ledger.
     *
     * @param cards     the cards of the scenario's payments
     * @param paidCards the cards of the payments the service confirmed
     * @throws IllegalStateException if the consumer failed or did not catch up within {@code timeout}
     */
    LedgerFigures awaitCaughtUp(Set<String> cards, Set<String> paidCards, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        List<String> previous = null;
        while (true) {
            if (failure != null) {
                throw new IllegalStateException(failure);
            }
            List<String> entryCards = caughtUp() ? entryCards() : null;
            if (entryCards != null && entryCards.containsAll(paidCards) && entryCards.equals(previous)) {
                return Tally.countLedger(cards, paidCards, entryCards, kills.get(), starts.get());
            }
            previous = entryCards;
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("the ledger consumer did not catch up within " + timeout.toSeconds() + " s; see " + log);
            }
            ChildProcess.sleep(300);
        }
    }

    /** Whether the consumer is alive and its group has committed every offset of the topic. */
    private boolean caughtUp() {
        ChildProcess current = process;
        if (!current.alive()) {
            return false;
        }
        LabHttp.Result result = LabHttp.get(port, "/lag", Duration.ofSeconds(10));
        return result.response() != null && result.response().status() == 200
                && JSON.readTree(result.response().body()).path("lag").asLong(-1) == 0;
    }

    /** The card of every ledger entry, in entry order; null if the ledger could not be read. */
    private List<String> entryCards() {
        LabHttp.Result result = LabHttp.get(port, "/ledger", Duration.ofSeconds(30));
        if (result.response() == null || result.response().status() != 200) {
            return null;
        }
        List<String> cards = new ArrayList<>();
        for (JsonNode entry : JSON.readTree(result.response().body()).path("entries")) {
            cards.add(entry.path("card").asString());
        }
        return cards;
    }

    int kills() {
        return kills.get();
    }

    @Override
    public void close() {
        closing = true;
        try {
            watcher.join(Duration.ofSeconds(70).toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        ChildProcess current = process;
        if (current != null) {
            current.stop();
        }
    }
}
