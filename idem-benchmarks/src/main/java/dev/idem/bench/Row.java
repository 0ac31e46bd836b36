package dev.idem.bench;

/**
 * One line of the table: what ran, how fast, and its ratio to the line it is compared with.
 *
 * @param part      store, endpoint, inbox, growth
 * @param name      the case, e.g. "claim+complete (idem)"
 * @param backend   PostgreSQL, SQLite, HTTP
 * @param threads   threads, clients or connections
 * @param unit      what the rate counts, e.g. "ops/s", "req/s", "msg/s"
 * @param ratioTo   the name of the compared line, or null
 * @param ratio     this rate / that rate, or NaN
 */
public record Row(String part, String name, String backend, int threads, Measured measured, String unit, String ratioTo, double ratio,
                  String note) {
    public Row compare(String to, Measured other) {
        double r = other == null || other.rate() == 0 ? Double.NaN : measured.rate() / other.rate();
        return new Row(part, name, backend, threads, measured, unit, to, r, note);
    }
}
