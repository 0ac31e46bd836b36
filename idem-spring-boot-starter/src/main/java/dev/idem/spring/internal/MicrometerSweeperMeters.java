package dev.idem.spring.internal;

import dev.idem.Sweeper;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.TimeGauge;
import java.time.Clock;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

/**
 * Every sweeper's status as meters, tagged {@code sweeper} with its name ({@code records},
 * {@code inbox}, or the application's own): rows removed, the lag behind expiry, and whether the
 * last run failed. The meters read the status when scraped; a sweep costs nothing more.
 */
public final class MicrometerSweeperMeters implements SweeperMeters {
    public static final String REMOVED = "idem.sweeper.removed";
    public static final String LAG = "idem.sweeper.lag";
    public static final String LAST_RUN_FAILED = "idem.sweeper.last.run.failed";

    private final MeterRegistry registry;
    private final Clock clock;

    public MicrometerSweeperMeters(MeterRegistry registry) {
        this(registry, Clock.systemUTC());
    }

    MicrometerSweeperMeters(MeterRegistry registry, Clock clock) {
        this.registry = Objects.requireNonNull(registry, "registry is null");
        this.clock = Objects.requireNonNull(clock, "clock is null");
    }

    @Override
    public void register(Sweeper sweeper) {
        String name = sweeper.name();
        FunctionCounter.builder(REMOVED, sweeper, s -> s.status().removed())
                .description("expired rows deleted by the sweeper").tag("sweeper", name).register(registry);
        TimeGauge.builder(LAG, sweeper, TimeUnit.MILLISECONDS, s -> s.status().lag(clock.instant()).toMillis())
                .description("time since the sweeper last found nothing expired left: how far behind expiry its table may be")
                .tag("sweeper", name).register(registry);
        Gauge.builder(LAST_RUN_FAILED, sweeper, s -> s.status().lastRunFailed() ? 1 : 0)
                .description("1 when the sweeper's last run failed").tag("sweeper", name).register(registry);
    }
}
