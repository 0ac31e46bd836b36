package dev.idem.demo.lab;

/**
 * What one side of a pattern row left in its sink, counted from the sink after the side ran.
 *
 * @param items     the units of work the side was given (order lines, invoices, windows, events, payments, keys)
 * @param sink      what the sink holds, in words and figures
 * @param wrong     items the sink does not hold exactly once and exactly right
 * @param millis    how long the side ran
 * @param perSecond attempts per second, for a row that compares costs; NaN elsewhere
 * @param fleet     everything the fleet checker counted, for the fleet and failover rows' sides; null elsewhere
 * @param failover  what the failover row counted besides, for its sides; null elsewhere
 */
public record SideResult(Side side, int items, String sink, int wrong, long millis, double perSecond, FleetFigures fleet,
                         FailoverFigures failover) {
    SideResult(Side side, int items, String sink, int wrong, long millis, double perSecond, FleetFigures fleet) {
        this(side, items, sink, wrong, millis, perSecond, fleet, null);
    }

    SideResult(Side side, int items, String sink, int wrong, long millis, double perSecond) {
        this(side, items, sink, wrong, millis, perSecond, null);
    }

    SideResult(Side side, int items, String sink, int wrong, long millis) {
        this(side, items, sink, wrong, millis, Double.NaN);
    }

    /** Whether the side showed what it exists to show: failures for a naive side, none for an idempotent one. */
    public boolean asExpected() {
        return side.expected() == Verdict.FAILS ? wrong > 0 : wrong == 0;
    }
}
