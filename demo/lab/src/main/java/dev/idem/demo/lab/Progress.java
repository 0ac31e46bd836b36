package dev.idem.demo.lab;

import java.io.PrintStream;
import java.util.List;

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
        print((interactive ? "\r" : "") + current + " " + row.fault() + ": " + row.sides().stream().map(Side::label)
                .reduce((a, b) -> a + " vs " + b).orElse(""));
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
                sides.append(sides.length() == 0 ? "" : "; ").append(shown(side));
            }
            line = String.format("done in %.1f s: %s", result.millis() / 1000.0, sides);
        }
        print("        " + line);
    }

    /** What one side of a pattern row showed: how many items it got wrong, and whether that is what it exists to show. */
    static String shown(SideResult side) {
        String verdict = side.side().expected().label();
        return side.side().label() + ": " + side.wrong() + " of " + side.items() + " wrong, "
                + (side.asExpected() ? "shows it " + verdict : "NOT as expected: it should show it " + verdict);
    }

    /** A line, wrapped at the tables' width; further lines indented under the first's text. */
    private void print(String line) {
        List<String> parts = TableRenderer.wrap(line, TableRenderer.WIDTH);
        out.println(parts.get(0));
        for (String part : TableRenderer.wrap(String.join(" ", parts.subList(1, parts.size())), TableRenderer.WIDTH - 8)) {
            if (!part.isEmpty()) {
                out.println("        " + part);
            }
        }
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
        print(interactive ? "\r" + current + "   " + message : "        " + message);
    }

    synchronized void scenarioFinished(ScenarioResult result) {
        String line = String.format("%s done in %.1f s: %s; shows %s%s", current, result.millis() / 1000.0, counted(result),
                result.scenario().expectation().label(), result.asExpected() ? "" : "  (NOT as expected)");
        // On a terminal the line overwrites the progress bar: padded so that none of the bar is left after it.
        print(interactive ? "\r" + line + " ".repeat(Math.max(0, 100 - line.length())) : "        " + line.substring(current.length()).trim());
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
