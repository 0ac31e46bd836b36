package dev.idem.webflux;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.idem.client.IdempotentHttpClient;
import dev.idem.client.IdempotentResponse;
import dev.idem.testing.RealServices;
import dev.idem.testing.TestDatabase;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The WebFlux payments endpoint of {@link PaymentsUnderFaultsApp} under the faults the lab puts the
 * servlet service under: responses lost on the way back (a TCP proxy swallows them, the server sent
 * them in full) and the server SIGKILLed mid-request, after the card was charged and before the
 * payment was recorded or answered, then started again on the same port. The client is idem's
 * {@code IdempotentHttpClient}: one key per payment across its retries. Every payment the client was
 * told about is recorded, and no payment is charged twice.
 */
class PaymentsUnderFaultsTest {
    private static final int PAYMENTS = 20;
    /** Payments whose first response is lost on the way back. */
    private static final int LOSE_EVERY = 5;
    /** Payments during which the server is killed, after the charge. */
    private static final List<Integer> KILLED_DURING = List.of(7, 15);

    @TempDir
    Path dir;

    @Test
    void lostResponsesAndSigkillsMidRequestLoseNoPaymentAndChargeNoneTwice() throws Exception {
        try (TestDatabase db = RealServices.postgres()) {
            String url = ((HikariDataSource) db.dataSource()).getJdbcUrl();
            int port = freePort();
            Path arm = dir.resolve("arm");
            Process server = start(url, port, arm);
            IdempotentHttpClient client = IdempotentHttpClient.builder(HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build())
                    .maxAttempts(60).deadline(Duration.ofMinutes(2)).attemptTimeout(Duration.ofSeconds(5))
                    .backoff(Duration.ofMillis(100), Duration.ofSeconds(1)).build();
            List<String> acknowledged = new ArrayList<>();
            int lost = 0;
            int kills = 0;
            try (LossyProxy proxy = new LossyProxy(URI.create("http://127.0.0.1:" + port + "/"))) {
                for (int i = 0; i < PAYMENTS; i++) {
                    String key = "payment-" + i;
                    HttpRequest request = HttpRequest.newBuilder(proxy.uri("/payments")).header("Content-Type", "application/json")
                            .POST(HttpRequest.BodyPublishers.ofString("{\"amount\":" + (100 + i) + "}")).build();
                    if (i % LOSE_EVERY == 2) {
                        proxy.dropNextResponse();
                        lost++;
                    }
                    IdempotentResponse<String> response;
                    if (KILLED_DURING.contains(i)) {
                        Files.writeString(arm, "");
                        CompletableFuture<IdempotentResponse<String>> paying = client.sendAsync(request, HttpResponse.BodyHandlers.ofString(), key);
                        awaitFile(Path.of(arm + ".charged"));
                        server.destroyForcibly(); // SIGKILL: charged, neither recorded nor answered
                        assertThat(server.waitFor(30, TimeUnit.SECONDS)).isTrue();
                        kills++;
                        Files.delete(Path.of(arm + ".charged"));
                        server = start(url, port, arm);
                        response = paying.get(2, TimeUnit.MINUTES);
                    } else {
                        response = client.send(request, HttpResponse.BodyHandlers.ofString(), key);
                    }
                    assertThat(response.response().statusCode()).as("payment %d", i).isEqualTo(201);
                    acknowledged.add(key);
                }
            } finally {
                server.destroyForcibly();
            }

            int recorded = count(db, "SELECT count(*) FROM payments");
            int charges = count(db, "SELECT count(*) FROM gateway_charges");
            int chargedTwice = count(db, "SELECT count(*) FROM (SELECT payment_key FROM gateway_charges GROUP BY payment_key HAVING count(*) > 1) t");
            int lostPayments = count(db, "SELECT count(*) FROM gateway_charges g WHERE NOT EXISTS (SELECT 1 FROM payments p WHERE p.payment_key = g.payment_key)");
            System.out.printf("WebFlux payments under faults: %d payments, %d responses lost, %d SIGKILLs mid-request: acknowledged %d, "
                    + "recorded %d, charges %d; charged twice %d, charged but not recorded %d%n",
                    PAYMENTS, lost, kills, acknowledged.size(), recorded, charges, chargedTwice, lostPayments);
            assertThat(acknowledged).hasSize(PAYMENTS);
            assertThat(recorded).as("every acknowledged payment recorded").isEqualTo(PAYMENTS);
            assertThat(charges).as("one charge per payment").isEqualTo(PAYMENTS);
            assertThat(chargedTwice).isZero();
            assertThat(lostPayments).isZero();
            assertThat(kills).isEqualTo(KILLED_DURING.size());
        }
    }

    private Process start(String url, int port, Path arm) throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process process = new ProcessBuilder(java, "-Xmx128m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
                "-XX:+AllowRedefinitionToAddDeleteMethods", "-cp", System.getProperty("java.class.path"),
                PaymentsUnderFaultsApp.class.getName(), url, Integer.toString(port), arm.toString())
                .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve("server.log").toFile())).start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IllegalStateException("the payments server exited: " + Files.readString(dir.resolve("server.log")));
            }
            try (Socket probe = new Socket(InetAddress.getLoopbackAddress(), port)) {
                return process;
            } catch (IOException notYet) {
                Thread.sleep(100);
            }
        }
        process.destroyForcibly();
        throw new IllegalStateException("the payments server did not listen within 90 s: " + Files.readString(dir.resolve("server.log")));
    }

    private static void awaitFile(Path file) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!Files.exists(file)) {
            assertThat(System.nanoTime()).as("the armed payment reached its charge").isLessThan(deadline);
            Thread.sleep(50);
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }

    private static int count(TestDatabase db, String sql) throws SQLException {
        try (Connection c = db.dataSource().getConnection(); Statement st = c.createStatement(); ResultSet rs = st.executeQuery(sql)) {
            rs.next();
            return rs.getInt(1);
        }
    }
}
