package dev.idem.demo.lab;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/** Requests sent and not yet answered, so the lab can kill the service while one is deep inside it. */
final class InFlight {
    private final Map<Long, Long> started = new ConcurrentHashMap<>();
    private final AtomicLong ids = new AtomicLong();

    long begin() {
        long id = ids.incrementAndGet();
        started.put(id, System.nanoTime());
        return id;
    }

    void end(long id) {
        started.remove(id);
    }

    /** How long the oldest unanswered request has been waiting; 0 if none is. */
    long oldestMillis() {
        long now = System.nanoTime();
        return started.values().stream().mapToLong(t -> (now - t) / 1_000_000).max().orElse(0);
    }
}
