package dev.idem.bench;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;

/**
 * Runs an operation in a closed loop on {@code threads} threads: a warm-up whose operations are not
 * counted, then a measured window; an operation counts if it started after the warm-up and finished
 * inside the window, or if it is its thread's first to start after the warm-up: each thread counts at
 * least one, and the window is stretched to its end, so an operation slower than the window (a large
 * batch on a busy machine) gives a rate, not a zero.
 */
final class LoadLoop {
    /** One thread's operation; made per thread so it can keep its own state (a connection, a random). */
    @FunctionalInterface
    interface Op {
        void run() throws Exception;
    }

    @FunctionalInterface
    interface OpFactory {
        Op create(int thread) throws Exception;
    }

    private static final long MAX_ERRORS = 1000;

    private LoadLoop() {
    }

    static Measured run(int threads, Duration warmup, Duration window, OpFactory factory) throws InterruptedException {
        return run(threads, warmup, window, factory, new ArrayList<>());
    }

    /**
     * As {@link #run(int, Duration, Duration, OpFactory)}, adding each thread's latencies to
     * {@code latencies}: a line measured in several rounds merges them with {@link #merge}.
     */
    static Measured run(int threads, Duration warmup, Duration window, OpFactory factory, List<Latencies> latencies)
            throws InterruptedException {
        return run(threads, warmup, window, factory, latencies, () -> false);
    }

    /**
     * As {@link #run(int, Duration, Duration, OpFactory, List)}, ending early once {@code stop} says so
     * (each thread having counted an operation): a load kept up while something else runs for as long
     * as it takes, such as the scale part's purge under load.
     */
    static Measured run(int threads, Duration warmup, Duration window, OpFactory factory, List<Latencies> latencies, BooleanSupplier stop)
            throws InterruptedException {
        int first = latencies.size();
        AtomicLong errors = new AtomicLong();
        AtomicLong lastCounted = new AtomicLong(Long.MIN_VALUE);
        AtomicReference<Throwable> firstError = new AtomicReference<>();
        CountDownLatch ready = new CountDownLatch(threads);
        CountDownLatch go = new CountDownLatch(1);
        long[] times = new long[2];
        List<Thread> workers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            Latencies mine = new Latencies();
            latencies.add(mine);
            int index = t;
            Thread worker = new Thread(() -> {
                Op op;
                try {
                    op = factory.create(index);
                } catch (Exception e) {
                    firstError.compareAndSet(null, e);
                    errors.incrementAndGet();
                    ready.countDown();
                    return;
                }
                ready.countDown();
                try {
                    go.await();
                } catch (InterruptedException e) {
                    return;
                }
                long measureFrom = times[0];
                long end = times[1];
                boolean counted = false;
                while (true) {
                    long start = System.nanoTime();
                    // A thread stops at the window's end once it has counted an operation: one slower than
                    // the whole window (a big batch on a busy machine) still gives its line a rate.
                    if ((start >= end || stop.getAsBoolean()) && counted) {
                        break;
                    }
                    try {
                        op.run();
                    } catch (Exception | AssertionError e) {
                        firstError.compareAndSet(null, e);
                        if (errors.incrementAndGet() > MAX_ERRORS) {
                            break;
                        }
                        continue;
                    }
                    long done = System.nanoTime();
                    if (start >= measureFrom && (done <= end || !counted)) {
                        mine.add(done - start);
                        counted = true;
                        lastCounted.accumulateAndGet(done, Math::max);
                    }
                }
            }, "bench-" + t);
            worker.setDaemon(true);
            workers.add(worker);
            worker.start();
        }
        ready.await();
        long now = System.nanoTime();
        times[0] = now + warmup.toNanos();
        times[1] = times[0] + window.toNanos();
        go.countDown();
        for (Thread w : workers) {
            w.join();
        }
        long ops = 0;
        for (Latencies l : latencies.subList(first, latencies.size())) {
            ops += l.size();
        }
        if (firstError.get() != null && (ops == 0 || errors.get() > MAX_ERRORS)) {
            throw new IllegalStateException("benchmark operation failed " + errors.get() + " times", firstError.get());
        }
        if (firstError.get() != null) {
            System.err.println("bench: " + errors.get() + " operations failed, first: " + firstError.get());
        }
        double[] p = Latencies.percentiles(latencies.subList(first, latencies.size()));
        // The window, or longer when a thread's first counted operation ended after it (see the loop).
        long measured = Math.max(window.toNanos(), lastCounted.get() == Long.MIN_VALUE ? 0 : lastCounted.get() - times[0]);
        return new Measured(ops, measured / 1e9, p[0], p[1], errors.get(), 1);
    }

    /** Rounds of one line as one: their operations over their windows, percentiles over all their latencies. */
    static Measured merge(List<Measured> rounds, List<Latencies> latencies) {
        long ops = 0;
        double seconds = 0;
        long errors = 0;
        for (Measured m : rounds) {
            ops += m.ops();
            seconds += m.seconds();
            errors += m.errors();
        }
        double[] p = Latencies.percentiles(latencies);
        return new Measured(ops, seconds, p[0], p[1], errors, 1);
    }
}
