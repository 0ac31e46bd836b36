package dev.idem.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.jdbc.Sqlite;
import dev.idem.spring.methods.MethodApplication;
import dev.idem.spring.methods.Payments;
import dev.idem.spring.methods.Payments.Receipt;
import dev.idem.spring.methods.PaymentsChild;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * A child JVM runs an {@link IdempotentMethod} with two phases and is killed (SIGKILL) after the
 * first phase's checkpoint; a retry with the same key in another process takes the key over when
 * the dead owner's lease runs out and resumes: the finished phase is not run again, the other runs
 * once, and later calls replay. Effects are rows in the shared database (a SQLite file).
 */
class IdempotentMethodCrashTest {

    @TempDir
    Path dir;

    @Test
    void aRetryAfterTheOwnerWasKilledMidMethodResumesAfterItsLastPhase() throws Exception {
        String jdbcUrl = Sqlite.url(dir.resolve("payments.db"));
        String orderId = "crash-" + UUID.randomUUID();
        Path marker = dir.resolve("charged");
        Path log = dir.resolve("child.log");
        Process child = new ProcessBuilder(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx256m", "-cp", System.getProperty("java.class.path"), PaymentsChild.class.getName(),
                jdbcUrl, orderId, marker.toString()))
                .redirectErrorStream(true).redirectOutput(log.toFile()).start();
        long childPid = child.pid();
        try {
            Instant deadline = Instant.now().plus(Duration.ofSeconds(90));
            while (!Files.exists(marker)) {
                assertThat(child.isAlive()).as("the child is running (log: %s)", log).isTrue();
                assertThat(Instant.now()).as("the child charged within 90 s (log: %s)", log).isBefore(deadline);
                Thread.sleep(20);
            }
        } finally {
            child.destroyForcibly(); // SIGKILL: no shutdown hook releases the key
            child.waitFor();
        }

        try (ConfigurableApplicationContext app = MethodApplication.start("--spring.datasource.url=" + jdbcUrl,
                "--spring.main.banner-mode=off", "--logging.level.root=WARN")) {
            Payments payments = app.getBean(Payments.class);
            assertThat(payments.effects(orderId, "charge")).as("the killed owner charged").isEqualTo(1);

            Receipt retried = payments.chargeAndShip(orderId); // waits out the dead owner's lease, then takes over

            assertThat(retried.attempt()).as("a takeover").isEqualTo(2);
            assertThat(retried.resumed()).isTrue();
            assertThat(retried.pid()).isEqualTo(ProcessHandle.current().pid()).isNotEqualTo(childPid);
            assertThat(payments.effects(orderId, "charge")).as("the finished phase did not run again").isEqualTo(1);
            assertThat(payments.effects(orderId, "ship")).isEqualTo(1);

            assertThat(payments.chargeAndShip(orderId)).as("replayed").isEqualTo(retried);
            assertThat(payments.effects(orderId, "charge")).isEqualTo(1);
            assertThat(payments.effects(orderId, "ship")).isEqualTo(1);
        }
    }
}
