package dev.idem.demo.payments;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What can be checked without halting the test's JVM: which point is armed, and the marker that disarms it. */
class CrashPointsTest {
    @TempDir
    Path dataDir;

    @Test
    void onlyTheChosenPointIsArmedAndOthersPassThrough() {
        CrashPoints crashes = new CrashPoints(CrashPoint.AFTER_GATEWAY_CALL, dataDir);
        assertThat(crashes.armed(CrashPoint.AFTER_GATEWAY_CALL)).isTrue();
        for (CrashPoint other : CrashPoint.values()) {
            if (other != CrashPoint.AFTER_GATEWAY_CALL) {
                assertThat(crashes.armed(other)).isFalse();
                crashes.reach(other); // returns: this JVM is still here
            }
        }
    }

    @Test
    void theMarkerOfAnEarlierCrashDisarmsThePointAfterRestart() throws Exception {
        Files.createFile(dataDir.resolve("crashed-after-claim"));
        CrashPoints crashes = new CrashPoints(CrashPoint.AFTER_CLAIM, dataDir);
        assertThat(crashes.armed(CrashPoint.AFTER_CLAIM)).isFalse();
        crashes.reach(CrashPoint.AFTER_CLAIM);
    }

    @Test
    void noneArmsNothing() {
        for (CrashPoint point : CrashPoint.values()) {
            assertThat(CrashPoints.none().armed(point)).isFalse();
        }
    }

    @Test
    void flagsRoundTrip() {
        for (CrashPoint point : CrashPoint.values()) {
            assertThat(CrashPoint.fromFlag(point.flag())).isEqualTo(point);
        }
    }
}
