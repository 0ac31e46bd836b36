package dev.idem.spring.listener;

import dev.idem.spring.listener.app.LedgerApplication;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * {@link LedgerApplication} in a child JVM (-Xmx256m, as the starter's other child apps), which its
 * listener may halt on purpose; its output goes to a log file in target/ledger-logs.
 */
final class LedgerProcess implements AutoCloseable {
    private final Process process;
    private final Path log;

    private LedgerProcess(Process process, Path log) {
        this.process = process;
        this.log = log;
    }

    static LedgerProcess start(Path dir, List<String> arguments) throws IOException {
        Path log = Files.createDirectories(Path.of("target", "ledger-logs")).resolve("ledger-" + UUID.randomUUID().toString().substring(0, 8) + ".log");
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx256m", "-XX:TieredStopAtLevel=1",
                "-cp", System.getProperty("java.class.path"),
                LedgerApplication.class.getName(),
                "--spring.main.banner-mode=off",
                "--logging.level.root=WARN"));
        command.addAll(arguments);
        Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        return new LedgerProcess(process, log);
    }

    boolean isAlive() {
        return process.isAlive();
    }

    /** The exit code, once it ended: 3 is the listener's deliberate halt. */
    int exitValue() {
        return process.exitValue();
    }

    String tail() {
        try {
            List<String> lines = Files.readAllLines(log);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
        } catch (IOException e) {
            return "(no log: " + e + ")";
        }
    }

    @Override
    public void close() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor();
    }
}
