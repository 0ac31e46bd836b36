package dev.idem.testing;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * Races for the contract tests: tasks on their own threads, released together by a barrier so they
 * really overlap (a thread pool alone would start them one after another on a busy machine).
 */
public final class Concurrently {
    private static final long START_SECONDS = 30;
    private static final long FINISH_SECONDS = 120;

    private Concurrently() {
    }

    /** Runs {@code task} on {@code threads} threads at once; the results in thread order. */
    public static <T> List<T> call(int threads, Callable<T> task) throws Exception {
        return callAll(Collections.nCopies(threads, task));
    }

    /** Runs every task on its own thread, all released at once; the results in the tasks' order. */
    public static <T> List<T> callAll(List<? extends Callable<T>> tasks) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(tasks.size());
        try {
            CyclicBarrier start = new CyclicBarrier(tasks.size());
            List<Future<T>> futures = new ArrayList<>();
            for (Callable<T> task : tasks) {
                futures.add(pool.submit(() -> {
                    start.await(START_SECONDS, TimeUnit.SECONDS);
                    return task.call();
                }));
            }
            List<T> results = new ArrayList<>();
            for (Future<T> f : futures) {
                results.add(f.get(FINISH_SECONDS, TimeUnit.SECONDS));
            }
            return results;
        } finally {
            pool.shutdownNow();
        }
    }
}
