package dev.idem.spring.internal;

import dev.idem.Completer;
import dev.idem.Idem;
import dev.idem.OperationRegistry;
import dev.idem.spring.IdemProperties;
import java.util.Objects;
import java.util.Optional;
import org.springframework.context.SmartLifecycle;

/**
 * Runs the starter's {@link Completer} with the application context: started when a route is
 * {@code @Idempotent(completable = true)}, unless {@code idem.completer.enabled=false}; closed on shutdown, before the web server stops (a run in
 * progress is interrupted, and its record's lease given back for the next completer).
 */
public final class CompleterLifecycle implements SmartLifecycle {
    private final Idem engine;
    private final IdemProperties.Completer settings;
    private final CompletableRoutes routes;
    private Completer completer;
    private volatile boolean running;

    /** @param engine the engine the filter runs routes on (the application's, with {@code idem.not-stored-statuses}) */
    public CompleterLifecycle(Idem engine, IdemProperties.Completer settings, CompletableRoutes routes) {
        this.engine = Objects.requireNonNull(engine, "engine is null");
        this.settings = Objects.requireNonNull(settings, "settings is null");
        this.routes = Objects.requireNonNull(routes, "routes is null");
    }

    @Override
    public synchronized void start() {
        if (running) {
            return;
        }
        running = true;
        if (!settings.isEnabled()) {
            return;
        }
        Optional<OperationRegistry> registry = routes.registry();
        if (registry.isEmpty()) {
            return; // no completable route: nothing this application could run
        }
        completer = Completer.builder(engine, registry.get())
                .delay(settings.getDelay())
                .pollInterval(settings.getPollInterval())
                .maxAttempts(settings.getMaxAttempts())
                .build()
                .start();
    }

    @Override
    public synchronized void stop() {
        if (completer != null) {
            completer.close();
            completer = null;
        }
        running = false;
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    /**
     * Starts after the web server (Spring Boot's start-stop phase is {@code DEFAULT_PHASE - 2048}), with its
     * graceful shutdown's phase, so it stops before the server does.
     */
    @Override
    public int getPhase() {
        return SmartLifecycle.DEFAULT_PHASE - 1024;
    }

    /** The running completer; empty when none runs. */
    public synchronized Optional<Completer> completer() {
        return Optional.ofNullable(completer);
    }
}
