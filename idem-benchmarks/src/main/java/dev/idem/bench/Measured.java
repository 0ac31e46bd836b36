package dev.idem.bench;

/** What one timed run measured: operations finished inside the window, their rate and latency. */
public record Measured(long ops, double seconds, double p50Millis, double p99Millis, long errors, long unitsPerOp) {
    /** Operations per second (a batch counts as {@code unitsPerOp}). */
    public double rate() {
        return seconds <= 0 ? 0 : ops * (double) unitsPerOp / seconds;
    }

    public Measured withUnits(long units) {
        return new Measured(ops, seconds, p50Millis, p99Millis, errors, units);
    }
}
