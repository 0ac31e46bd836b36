package dev.idem.bench;

import java.util.List;

/**
 * A latency histogram of one thread, in nanoseconds: log-linear buckets (64 per power of two, so a
 * value is known within 1.6 %), fixed size whatever the rate, merged for percentiles.
 */
final class Latencies {
    private static final int SUB = 64;
    private static final int SUB_BITS = 6;
    private static final int BUCKETS = (64 - SUB_BITS) * SUB + SUB;

    private final long[] counts = new long[BUCKETS];
    private long size;

    void add(long nanos) {
        counts[index(Math.max(0, nanos))]++;
        size++;
    }

    long size() {
        return size;
    }

    static int index(long v) {
        if (v < SUB) {
            return (int) v;
        }
        int exponent = 63 - Long.numberOfLeadingZeros(v);
        int shift = exponent - SUB_BITS;
        return (shift + 1) * SUB + (int) ((v >>> shift) & (SUB - 1));
    }

    /** The middle of bucket {@code i}. */
    static double value(int i) {
        if (i < SUB) {
            return i;
        }
        int shift = i / SUB - 1;
        long low = ((long) (SUB + i % SUB)) << shift;
        return low + ((1L << shift) - 1) / 2.0;
    }

    /** {p50, p99} in milliseconds over all given recorders; zeros if none recorded anything. */
    static double[] percentiles(List<Latencies> all) {
        long[] merged = new long[BUCKETS];
        long total = 0;
        for (Latencies l : all) {
            for (int i = 0; i < BUCKETS; i++) {
                merged[i] += l.counts[i];
            }
            total += l.size;
        }
        if (total == 0) {
            return new double[] {0, 0};
        }
        return new double[] {at(merged, total, 0.50) / 1e6, at(merged, total, 0.99) / 1e6};
    }

    static double[] percentilesOf(long[] nanos) {
        Latencies l = new Latencies();
        for (long n : nanos) {
            l.add(n);
        }
        return percentiles(List.of(l));
    }

    private static double at(long[] counts, long total, double q) {
        long rank = Math.max(1, (long) Math.ceil(q * total));
        long seen = 0;
        for (int i = 0; i < counts.length; i++) {
            seen += counts[i];
            if (seen >= rank) {
                return value(i);
            }
        }
        return value(counts.length - 1);
    }
}
