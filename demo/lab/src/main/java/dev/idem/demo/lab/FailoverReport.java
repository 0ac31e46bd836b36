package dev.idem.demo.lab;

import java.util.List;
import java.util.Locale;

/** The failover row's own table in the terminal: each side's replication, lag at the kill, losses and must-be-0 figures. */
final class FailoverReport {
    static final List<String> HEADERS = List.of("replication", "lag at kill", "acked", "acked lost", "re-charged", "charged 2+",
            "bodies differ", "500s", "503s", "switch ms", "shows");

    private FailoverReport() {
    }

    static List<SideResult> sides(LabReport report) {
        return report.patterns(Group.FAILOVER).stream().flatMap(p -> p.sides().stream()).filter(s -> s.failover() != null).toList();
    }

    static List<String> cells(SideResult side) {
        FailoverFigures o = side.failover();
        FleetFigures f = side.fleet();
        return List.of(o.replication(), String.format(Locale.ROOT, "%,d B", o.lagBytes()), n(o.acknowledged()), n(o.recordsLost()),
                n(o.chargedAgain()), n(f.chargedTwice()), n(f.bodiesDiffer()), n(f.answered500()), n(o.answered503()),
                Long.toString(o.switchMillis()),
                (side.asExpected() ? "yes: " : "NO, expected: ") + side.side().expected().label());
    }

    /** The table and a legend of lines under 120 columns. */
    static String text(LabReport report) {
        List<SideResult> sides = sides(report);
        if (sides.isEmpty()) {
            return "";
        }
        String nl = System.lineSeparator();
        StringBuilder out = new StringBuilder(nl).append("The failover: the fleet on a primary and a standby; the primary SIGKILLed, the standby promoted")
                .append(nl).append(TableRenderer.table(HEADERS, sides.stream().map(FailoverReport::cells).toList(), 1, HEADERS.size() - 2))
                .append(nl)
                .append("lag at kill: WAL the primary had written and the standby had not received.  acked lost: payments answered 2xx")
                .append(nl).append("whose answer, sent again with the same key after the failover, was not their stored one.").append(nl)
                .append("re-charged: of those, payments whose charge the gateway was asked for again meanwhile (it replayed it; a")
                .append(nl).append("gateway without keys of its own would have charged twice).  switch ms: SIGKILL until the standby took writes.")
                .append(nl);
        for (SideResult side : sides) {
            FleetFigures f = side.fleet();
            out.append(String.format(Locale.ROOT, "%s: must-be-0 2xx no charge %d, charge not on row %d, 2 rows/key %d, unasked %d;"
                            + " gave up %d;", side.failover().replication(), f.okWithoutCharge(), f.chargeNotOnRow(), f.twoRowsPerKey(),
                    f.unaskedCharges(), f.gaveUp())).append(nl);
            long firstOk = side.failover().firstOkMillis();
            out.append(String.format(Locale.ROOT, "  first 2xx %s after the kill; answers not 2xx: %s", firstOk < 0 ? "never"
                    : String.format(Locale.ROOT, "%.1f s", firstOk / 1000.0), FleetReport.failures(f.failures()))).append(nl);
        }
        return out.toString();
    }

    private static String n(int value) {
        return Integer.toString(value);
    }
}
