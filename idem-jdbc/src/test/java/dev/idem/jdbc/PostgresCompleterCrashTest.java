package dev.idem.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.idem.Completer;
import dev.idem.Idem;
import dev.idem.IdempotencyKey;
import dev.idem.OperationRegistry;
import dev.idem.Outcome;
import dev.idem.jdbc.testing.Backends;
import dev.idem.spi.IdempotencyRecord;
import dev.idem.spi.RecordKey;
import dev.idem.spi.RecordState;
import dev.idem.testing.TestDatabase;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The completer after a real crash: the owner, a child JVM, is SIGKILLed inside a phase (its effect
 * done, its checkpoint not written) and its client never retries. While the owner lives and renews,
 * the completer leaves the record alone; after the kill it resumes after the checkpointed phase, runs
 * the interrupted one again under the same downstream key, and completes; the client's retry replays.
 */
class PostgresCompleterCrashTest {
    private static final Duration DEADLINE = Duration.ofSeconds(60);

    @TempDir
    Path dir;

    @Test
    @DisplayName("an owner SIGKILLed mid-phase is completed by the completer after its lease: the finished phase not again, the interrupted one under its key")
    void completesAfterTheOwnerIsKilled() throws Exception {
        Path effects = dir.resolve("effects");
        Path log = dir.resolve("owner.log");
        String principal = "crash-" + UUID.randomUUID();
        String key = "key-" + UUID.randomUUID();
        try (TestDatabase db = Backends.POSTGRESQL.open()) {
            JdbcIdempotencyStore store = Backends.migratedStore(db);
            String url = ((HikariDataSource) db.dataSource()).getJdbcUrl();
            Process owner = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx128m",
                    "-cp", System.getProperty("java.class.path"), CompleterCrashOwner.class.getName(), url, principal, key, "order-9",
                    effects.toString()).redirectErrorStream(true).redirectOutput(log.toFile()).start();
            try {
                awaitTrue("the owner stopped inside its receipt phase", owner, log, () -> lines(effects).contains(CompleterCrashOwner.STOPPED));
                Idem idem = Idem.builder().store(store).lease(CompleterCrashOwner.LEASE).build();
                OperationRegistry registry = CompleterCrashOwner.payments(effects, false);
                RecordKey id = new RecordKey(CompleterCrashOwner.scope(principal), IdempotencyKey.of(key));
                try (Completer completer = Completer.builder(idem, registry).delay(Duration.ofMillis(300)).pollInterval(Duration.ofMillis(50))
                        .build().start()) {
                    awaitTrue("five polls while the owner lives", owner, log, () -> completer.status().polls() >= 5);
                    assertThat(store.find(id).orElseThrow().attempt()).as("a live owner is not displaced").isEqualTo(1);

                    owner.destroyForcibly().waitFor();   // SIGKILL: no shutdown hook, no release

                    awaitTrue("the completer completed the record", null, log, () -> completer.status().completed() == 1);
                }
                IdempotencyRecord record = store.find(id).orElseThrow();
                assertThat(record.state()).isEqualTo(RecordState.COMPLETED);
                List<String> lines = lines(effects);
                assertThat(lines.stream().filter(l -> l.startsWith("charge "))).as("the checkpointed charge is not run again").hasSize(1);
                List<String> receipts = lines.stream().filter(l -> l.startsWith("receipt ")).toList();
                assertThat(receipts).as("the interrupted receipt runs again, under the same downstream key").hasSize(2);
                assertThat(receipts.get(1)).isEqualTo(receipts.get(0));

                Outcome retry = idem.execute(id.scope(), id.key(), CompleterCrashOwner.fingerprint("order-9"), registry.operation("pay", "order-9"));
                assertThat(retry).isInstanceOf(Outcome.Replayed.class);
                assertThat(new String(((Outcome.Replayed) retry).response().body(), StandardCharsets.UTF_8)).isEqualTo("paid order-9 by attempt 2");
                assertThat(lines(effects)).isEqualTo(lines);
            } finally {
                owner.destroyForcibly().waitFor();
            }
        }
    }

    private static List<String> lines(Path file) {
        try {
            return Files.exists(file) ? Files.readAllLines(file, StandardCharsets.UTF_8) : List.of();
        } catch (IOException e) {
            throw new AssertionError("cannot read " + file, e);
        }
    }

    /** Waits for {@code condition}; fails at the deadline, or at once with its log if {@code process} exited. */
    private static void awaitTrue(String what, Process process, Path log, BooleanSupplier condition) throws Exception {
        long deadline = System.nanoTime() + DEADLINE.toNanos();
        while (!condition.getAsBoolean()) {
            if (process != null && !process.isAlive()) {
                throw new AssertionError("the owner exited with " + process.exitValue() + " before: " + what + "\n" + Files.readString(log));
            }
            if (System.nanoTime() > deadline) {
                throw new AssertionError("not within " + DEADLINE + ": " + what);
            }
            Thread.sleep(10);
        }
    }
}
