package dev.idem.spring.internal;

import dev.idem.Sweeper;
import java.util.Objects;
import org.springframework.context.SmartLifecycle;

/** Starts the {@link Sweeper} bean with the application context and stops it with it. */
public final class SweeperLifecycle implements SmartLifecycle {
    private final Sweeper sweeper;
    private volatile boolean running;

    public SweeperLifecycle(Sweeper sweeper) {
        this.sweeper = Objects.requireNonNull(sweeper, "sweeper is null");
    }

    @Override
    public synchronized void start() {
        if (!running) {
            sweeper.start();
            running = true;
        }
    }

    @Override
    public synchronized void stop() {
        if (running) {
            sweeper.close();
            running = false;
        }
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    /** The sweeper this lifecycle runs. */
    public Sweeper sweeper() {
        return sweeper;
    }
}
