package dev.idem.demo.ledger;

import java.util.concurrent.atomic.AtomicLong;

/**
 * {@code --crash-after N}: halts the JVM (exit status 3) once this process has written N ledger
 * entries, at the one moment that matters for a consumer: <b>after</b> the database commit and
 * <b>before</b> the Kafka offset commit. The restarted consumer then gets the committed-but-unacked
 * records again. {@link Runtime#halt} runs no shutdown hook and closes nothing, so the broker sees
 * a dead process, as after a power cut.
 */
final class CrashPoint {
    static final int EXIT_STATUS = 3;

    private final long after;
    private final AtomicLong written = new AtomicLong();

    private CrashPoint(long after) {
        this.after = after;
    }

    /** No crash. */
    static CrashPoint never() {
        return new CrashPoint(Long.MAX_VALUE);
    }

    /** @param after at least 1 */
    static CrashPoint after(long after) {
        if (after < 1) {
            throw new IllegalArgumentException("the crash point must be at least 1, was " + after);
        }
        return new CrashPoint(after);
    }

    /**
     * Counts {@code entries} just committed to the database; halts if that brings this process's
     * total to the crash point. Call it after the database commit and before the offset commit.
     */
    void committed(int entries) {
        long total = written.addAndGet(entries);
        if (total >= after) {
            System.err.println("ledger-consumer: crash point reached after " + total + " records (database committed, offsets not)");
            System.err.flush();
            Runtime.getRuntime().halt(EXIT_STATUS);
        }
    }

    /** Entries written by this process so far. */
    long written() {
        return written.get();
    }
}
