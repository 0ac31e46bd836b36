package dev.idem.demo.lab;

import java.nio.file.Path;
import java.util.List;

/**
 * TEST CODE ONLY: runs the full lab against the stand-in payments service, for trying changes to the
 * lab's machinery without the real service. Arguments: [payments] [out] [db].
 */
public final class StandInLabMain {
    private StandInLabMain() {
    }

    public static void main(String[] args) throws Exception {
        int payments = args.length > 0 ? Integer.parseInt(args[0]) : 40;
        Path out = Path.of(args.length > 1 ? args[1] : "target/stand-in-lab");
        String db = args.length > 2 ? args[2] : null;
        LabSettings settings = new LabSettings(payments, 4, 2, 42, db, out, Scenarios.select(List.of()));
        LabReport report = new Lab(settings, TestComponents.fromClassPath(), System.out).run();
        System.exit(report.allAsExpected() ? 0 : 1);
    }
}
