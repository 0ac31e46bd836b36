package dev.idem.spring.internal;

import dev.idem.Sweeper;

/** Publishes a sweeper's {@link Sweeper#status()}; a no-op without Micrometer. */
public interface SweeperMeters {
    SweeperMeters NONE = sweeper -> { };

    void register(Sweeper sweeper);
}
