package dev.idem.demo.lab;

import java.io.PrintStream;

/**
 * What the lab prints while it runs. On a terminal one line per scenario is redrawn in place; in a
 * log (no console) each scenario prints when it starts and when it ends.
 */
final class Progress {
    private final PrintStream out;
    private final boolean interactive;
    private long lastDraw;
    private String current = "";

    Progress(PrintStream out, boolean interactive) {
        this.out = out;
        this.interactive = interactive;
    }

    static Progress forConsole(PrintStream out) {
        return new Progress(out, System.console() != null);
    }

    synchronized void scenarioStarted(int number, int total, Scenario scenario) {
        current = String.format("[%d/%d] %-18s", number, total, scenario.id());
        if (!interactive) {
            out.printf("%s %s x %s x %s%n", current, scenario.strategy().label(), scenario.variant().label(), scenario.fault().label());
        }
    }

    synchronized void rowStarted(int number, int total, PatternRow row) {
        current = String.format("[%d/%d] %-18s", number, total, row.id());
        out.printf(interactive ? "\r%s %s%n" : "%s %s%n", current, row.sides().stream().map(Side::label).reduce((a, b) -> a + " vs " + b).orElse("")
                + " x " + row.fault());
    }

    synchronized void rowFinished(PatternResult result) {
        String line;
        if (result.skipped() != null) {
            line = "skipped: " + result.skipped();
        } else if (result.sides().isEmpty()) {
            line = result.note();
        } else {
            StringBuilder sides = new StringBuilder();
            for (SideResult side : result.sides()) {
                sides.append(sides.length() == 0 ? "" : "; ").append(side.side().label()).append(": ").append(side.wrong()).append(" of ")
                        .append(side.items()).append(" wrong");
            }
            line = String.format("done in %.1f s: %s%s", result.millis() / 1000.0, sides, result.asExpected() ? "" : "  (NOT as expected)");
        }
        out.println("        " + line);
        out.flush();
    }

    /** Redrawn at most ten times a second. */
    synchronized void payments(int settled, int total, int requests) {
        long now = System.nanoTime();
        if (!interactive || now - lastDraw < 100_000_000L && settled < total) {
            return;
        }
        lastDraw = now;
        int width = 30;
        int filled = total == 0 ? width : settled * width / total;
        out.printf("\r%s [%s%s] %d/%d payments, %d requests   ", current, "#".repeat(filled), ".".repeat(width - filled), settled, total, requests);
        out.flush();
    }

    synchronized void event(String message) {
        if (interactive) {
            out.printf("\r%s   %s%n", current, message);
        } else {
            out.printf("        %s%n", message);
        }
    }

    synchronized void scenarioFinished(ScenarioResult result) {
        String line = String.format("%s done in %.1f s: %s; shows %s%s", current, result.millis() / 1000.0, counted(result),
                result.scenario().expectation().label(), result.asExpected() ? "" : "  (NOT as expected)");
        out.println(interactive ? "\r" + line + " ".repeat(20) : "        " + line.substring(current.length()).trim());
        out.flush();
    }

    /** What the row exists to count: charges for a payments row, ledger entries for a messaging row. */
    static String counted(ScenarioResult result) {
        LedgerFigures l = result.ledger();
        if (l != null) {
            return String.format("%d ledger entries for %d paid payments, %d applied 2+, %d missing, %d consumer kills", l.entries(), l.paid(),
                    l.duplicatedEntries(), l.missing(), l.consumerKills());
        }
        Figures f = result.figures();
        return String.format("%d charges for %d payments, %d lost, %d charged 2+", f.charges(), f.payments(), f.lost(), f.duplicated());
    }
}
