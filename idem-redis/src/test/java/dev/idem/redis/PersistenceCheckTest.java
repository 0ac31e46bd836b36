package dev.idem.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.idem.Fingerprint;
import dev.idem.IdempotencyKey;
import dev.idem.Scope;
import dev.idem.StoredResponse;
import dev.idem.spi.ClaimOutcome;
import dev.idem.spi.ClaimRequest;
import dev.idem.spi.RecordKey;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** build() refuses a Redis that would forget records on restart, and accepts one that keeps them. */
class PersistenceCheckTest {

    @Test
    @DisplayName("by default build() refuses the machine's Redis, which persists nothing, and says how to fix it")
    void defaultRefusesNonPersistentServer() {
        try (StatefulRedisConnection<String, String> admin = RedisTests.admin()) {
            assumeTrue("no".equals(admin.sync().configGet("appendonly").get("appendonly")),
                    "this test needs a Redis with appendonly no, as the machine's runs (IDEM_REDIS_URL points elsewhere)");
        }
        assertThatThrownBy(() -> RedisIdempotencyStore.builder(RedisTests.client()).build())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("does not keep idempotency records durably")
                .hasMessageContaining("appendonly is 'no'")
                .hasMessageContaining("'appendonly yes'")
                .hasMessageContaining("'appendfsync everysec' (up to about 1 s of acknowledged records lost")
                .hasMessageContaining("'appendfsync always'")
                .hasMessageContaining("persistenceCheck(PersistenceCheck.SKIP)");
    }

    /**
     * A Redis of our own with the append-only file fsynced on every write: the default check accepts
     * it, and a completed record survives the server being killed and started again.
     */
    @Test
    @DisplayName("a Redis with appendonly yes and appendfsync always passes the check and keeps a record across kill -9")
    void persistentServerKeepsRecordsAcrossACrash(@TempDir Path dir) throws Exception {
        Path binary = Stream.of("/usr/bin/redis-server", "/usr/local/bin/redis-server").map(Path::of)
                .filter(Files::isExecutable).findFirst().orElse(null);
        assumeTrue(binary != null, "redis-server is not installed, so no private persistent Redis can be started");
        int port = freePort();
        RedisURI uri = RedisURI.builder().withHost("127.0.0.1").withPort(port).withTimeout(Duration.ofSeconds(10)).build();
        RecordKey id = new RecordKey(Scope.of("alice", "POST /payments"), IdempotencyKey.of("survives-restart"));
        Fingerprint fingerprint = Fingerprint.builder().part("body", "{}").build();
        StoredResponse paid = StoredResponse.of(201, "paid".getBytes(StandardCharsets.UTF_8));
        ClaimRequest request = new ClaimRequest(id, fingerprint, Duration.ofMinutes(1), Duration.ofHours(1));

        Process server = start(binary, dir, port);
        try (RedisIdempotencyStore store = RedisIdempotencyStore.builder(uri).build()) {
            ClaimOutcome.Acquired owner = (ClaimOutcome.Acquired) store.claim(request);
            store.complete(id, owner.token(), paid, Duration.ofHours(1));
        } finally {
            server.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }

        server = start(binary, dir, port);
        try (RedisIdempotencyStore store = RedisIdempotencyStore.builder(uri).build()) {
            assertThat(store.claim(request)).isEqualTo(new ClaimOutcome.Replay(paid));
        } finally {
            server.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            deleteTree(dir);
        }
    }

    private static Process start(Path binary, Path dir, int port) throws IOException, InterruptedException {
        Process server = new ProcessBuilder(List.of(binary.toString(), "--port", Integer.toString(port), "--bind", "127.0.0.1",
                "--dir", dir.toString(), "--appendonly", "yes", "--appendfsync", "always", "--save", "",
                "--logfile", dir.resolve("redis.log").toString()))
                .redirectErrorStream(true).redirectOutput(dir.resolve("stdout.log").toFile()).start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!dev.idem.testing.RealServices.answers("127.0.0.1", port)) {
            if (!server.isAlive() || System.nanoTime() > deadline) {
                server.destroyForcibly();
                throw new IllegalStateException("private redis-server did not come up on port " + port
                        + ": " + Files.readString(dir.resolve("stdout.log")));
            }
            Thread.sleep(50);
        }
        return server;
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    private static void deleteTree(Path dir) throws IOException {
        try (Stream<Path> paths = Files.walk(dir)) {
            paths.sorted(Comparator.reverseOrder()).filter(p -> !p.equals(dir)).forEach(p -> p.toFile().delete());
        }
    }
}
