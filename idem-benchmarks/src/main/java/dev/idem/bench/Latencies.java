package dev.idem.bench;

import java.util.Arrays;
import java.util.List;

/** Latencies of one thread in nanoseconds, growing as needed; merged and sorted for percentiles. */
final class Latencies {
    private long[] values = new long[1 << 14];
    private int size;

    void add(long nanos) {
        if (size == values.length) {
            values = Arrays.copyOf(values, size * 2);
        }
        values[size++] = nanos;
    }

    int size() {
        return size;
    }

    /** {p50, p99} in milliseconds over all given recorders; zeros if none recorded anything. */
    static double[] percentiles(List<Latencies> all) {
        int total = 0;
        for (Latencies l : all) {
            total += l.size;
        }
        long[] merged = new long[total];
        int at = 0;
        for (Latencies l : all) {
            System.arraycopy(l.values, 0, merged, at, l.size);
            at += l.size;
        }
        return percentilesOf(merged);
    }

    static double[] percentilesOf(long[] nanos) {
        if (nanos.length == 0) {
            return new double[] {0, 0};
        }
        Arrays.sort(nanos);
        return new double[] {nanos[index(nanos.length, 0.50)] / 1e6, nanos[index(nanos.length, 0.99)] / 1e6};
    }

    private static int index(int n, double q) {
        return Math.min(n - 1, Math.max(0, (int) Math.ceil(q * n) - 1));
    }
}
