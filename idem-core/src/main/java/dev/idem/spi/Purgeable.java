package dev.idem.spi;

/**
 * Something that keeps rows for a retention period and deletes expired ones in bounded batches:
 * an {@link IdempotencyStore}, an inbox, an outbox. {@link dev.idem.Sweeper} drives any of them.
 */
@FunctionalInterface
public interface Purgeable {

    /**
     * Deletes up to {@code limit} expired rows and returns how many it deleted. A return below
     * {@code limit} means none were left at that moment. Never deletes a live row.
     */
    int purge(int limit);
}
