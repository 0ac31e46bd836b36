package dev.idem.spring.internal;

import dev.idem.Sweeper;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.context.SmartLifecycle;

/**
 * Starts every {@link Sweeper} bean with the application context and stops them with it: idem's
 * own (the key store's, the inbox's) and any the application defines. An application's sweeper
 * runs beside idem's, never instead of one.
 */
public final class SweeperLifecycle implements SmartLifecycle {
    private final ObjectProvider<Sweeper> beans;
    private final SweeperMeters meters;
    private final List<Sweeper> started = new ArrayList<>();
    private volatile boolean running;

    /** @param beans every Sweeper bean, read at {@link #start()} when all of them exist */
    public SweeperLifecycle(ObjectProvider<Sweeper> beans, SweeperMeters meters) {
        this.beans = Objects.requireNonNull(beans, "beans is null");
        this.meters = Objects.requireNonNull(meters, "meters is null");
    }

    @Override
    public synchronized void start() {
        if (running) {
            return;
        }
        beans.orderedStream().forEach(sweeper -> {
            meters.register(sweeper);
            // One the application started itself keeps running; it is not this lifecycle's to stop.
            if (!sweeper.isRunning()) {
                sweeper.start();
                started.add(sweeper);
            }
        });
        running = true;
    }

    @Override
    public synchronized void stop() {
        if (running) {
            started.forEach(Sweeper::close);
            started.clear();
            running = false;
        }
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    /** The sweepers this lifecycle started, in start order. */
    public synchronized List<Sweeper> sweepers() {
        return List.copyOf(started);
    }
}
