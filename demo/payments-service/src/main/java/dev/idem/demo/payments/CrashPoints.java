package dev.idem.demo.payments;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code --crash-at=POINT}: the first time a payment reaches that point the process halts at once
 * ({@code Runtime.halt(137)}: no shutdown hooks, no flushing, no response), as a power cut would.
 * A marker file in the data folder records that it happened, so the restarted process runs through.
 */
public final class CrashPoints {
    private static final Logger LOG = LoggerFactory.getLogger(CrashPoints.class);
    /** The exit status a SIGKILLed JVM reports, so the halt looks like the kill it stands for. */
    public static final int HALT_STATUS = 137;

    private final CrashPoint armed;
    private final Path marker;

    public CrashPoints(CrashPoint armed, Path dataDir) {
        this.armed = armed;
        this.marker = armed == null ? null : dataDir.resolve("crashed-" + armed.flag());
        if (armed != null) {
            LOG.warn("--crash-at={}: this process halts the first time a payment reaches that point{}", armed.flag(),
                    Files.exists(marker) ? " (already crashed there once: " + marker + " exists, so it will not)" : "");
        }
    }

    public static CrashPoints none() {
        return new CrashPoints(null, null);
    }

    /** Whether {@code point} is the armed one and has not crashed yet. */
    public boolean armed(CrashPoint point) {
        return point == armed && armed != null && !Files.exists(marker);
    }

    /** Halts the process if {@code point} is armed and it has not crashed there before. */
    public void reach(CrashPoint point) {
        if (!armed(point)) {
            return;
        }
        try {
            Files.createDirectories(marker.getParent());
            try (FileChannel channel = FileChannel.open(marker, StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
                channel.force(true);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the crash marker " + marker, e);
        }
        System.err.println("payments-service: --crash-at=" + point.flag() + " reached: halting now");
        System.err.flush();
        Runtime.getRuntime().halt(HALT_STATUS);
    }
}
