package dev.idem.demo.payments;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.client.IdempotentHttpClient;
import dev.idem.client.IdempotentResponse;
import dev.idem.testing.RealServices;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The payments service on PostgreSQL while PostgreSQL terminates its connections every few hundred
 * milliseconds under load, paid through idem's own client. A store failure must come back as a
 * retryable 503 (never a final 500), so the client keeps the key and tries again: in the end no card
 * is charged twice, and no payment that was charged is reported to its client as failed.
 */
class DatabaseConnectionKillIT {
    private static final int PAYMENTS = 120;
    private static final int CLIENTS = 8;
    private static final Duration KILLING = Duration.ofSeconds(12);

    @TempDir
    Path dir;

    @Test
    @Timeout(300)
    void connectionsKilledUnderLoadChargeNobodyTwiceAndReportNoChargedPaymentAsFailed() throws Exception {
        String server = RealServices.postgresUrl();
        String schema = "kill_it_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
        String application = "idem-kill-" + schema;
        try (Connection c = DriverManager.getConnection(server); Statement st = c.createStatement()) {
            st.execute("CREATE SCHEMA " + schema);
        }
        String db = server + (server.contains("?") ? "&" : "?") + "currentSchema=" + schema + "&ApplicationName=" + application;
        try (GatewayForTests gateway = GatewayForTests.start(dir);
                ServiceProcess service = ServiceProcess.start(ServiceProcess.freePort(), gateway.baseUrl(), dir.resolve("service"),
                        dir.resolve("service.log"), "--db=" + db)) {
            AtomicBoolean paying = new AtomicBoolean(true);
            AtomicInteger killed = new AtomicInteger();
            Thread killer = new Thread(() -> killConnections(server, application, paying, killed), "connection-killer");
            killer.start();
            Map<String, Integer> finalStatus = payConcurrently(service.baseUrl());
            paying.set(false);
            killer.join();

            Map<String, Long> chargesPerCard = gateway.ledger().stream().filter(charge -> charge.card().startsWith("kill-"))
                    .collect(Collectors.groupingBy(GatewayForTests.Charge::card, Collectors.counting()));
            System.out.printf("connection kill run: %d connections terminated, %d payments, %d attempts, final statuses %s%n",
                    killed.get(), PAYMENTS, attempts.get(), finalStatus.values().stream()
                            .collect(Collectors.groupingBy(status -> status, Collectors.counting())));
            assertThat(killed).as("connections PostgreSQL terminated during the run").hasValueGreaterThan(10);
            assertThat(chargesPerCard).as("charges per card").allSatisfy((card, charges) -> assertThat(charges).as(card).isEqualTo(1));
            assertThat(chargesPerCard.keySet()).as("charged cards whose payment the client was told failed")
                    .allSatisfy(card -> assertThat(finalStatus.get(card)).as("final status for %s (log:%n%s)", card, service.tail())
                            .isEqualTo(201));
            assertThat(finalStatus).as("every payment answered").hasSize(PAYMENTS);
            assertThat(attempts).as("attempts in all: the kills reached the clients, which retried").hasValueGreaterThan(PAYMENTS);
        } finally {
            try (Connection c = DriverManager.getConnection(server); Statement st = c.createStatement()) {
                st.execute("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
            }
        }
    }

    /** Each payment's final status as its client saw it after retries (0: no answer in time), by card. */
    private final AtomicInteger attempts = new AtomicInteger();

    private Map<String, Integer> payConcurrently(String baseUrl) throws Exception {
        IdempotentHttpClient client = IdempotentHttpClient.builder(HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                        .connectTimeout(Duration.ofSeconds(2)).build())
                .maxAttempts(60).deadline(Duration.ofSeconds(90)).backoff(Duration.ofMillis(50), Duration.ofMillis(500)).build();
        Map<String, Integer> statuses = new ConcurrentHashMap<>();
        ExecutorService clients = Executors.newFixedThreadPool(CLIENTS);
        List<Future<?>> work = new ArrayList<>();
        for (int n = 0; n < PAYMENTS; n++) {
            String card = "kill-" + n + "-" + UUID.randomUUID().toString().substring(0, 8);
            HttpRequest pay = HttpRequest.newBuilder(URI.create(baseUrl + "/payments")).timeout(Duration.ofSeconds(20))
                    .header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString("{\"amount\":1500,\"currency\":\"EUR\",\"card\":\"" + card + "\"}")).build();
            work.add(clients.submit(() -> {
                int status;
                try {
                    IdempotentResponse<String> answer = client.send(pay, HttpResponse.BodyHandlers.ofString(), UUID.randomUUID().toString());
                    status = answer.statusCode();
                    attempts.addAndGet(answer.attempts());
                } catch (Exception e) {
                    status = 0;
                }
                statuses.put(card, status);
            }));
        }
        for (Future<?> f : work) {
            f.get(200, TimeUnit.SECONDS);
        }
        clients.shutdown();
        return statuses;
    }

    /** Terminates every connection of the service's pool every 300 ms for {@link #KILLING}, or until the payments are done. */
    private static void killConnections(String server, String application, AtomicBoolean paying, AtomicInteger killed) {
        long end = System.nanoTime() + KILLING.toNanos();
        try (Connection c = DriverManager.getConnection(server); Statement st = c.createStatement()) {
            while (paying.get() && System.nanoTime() < end) {
                try (ResultSet rs = st.executeQuery("SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE application_name = '"
                        + application + "'")) {
                    rs.next();
                    killed.addAndGet(rs.getInt(1));
                }
                Thread.sleep(300);
            }
        } catch (Exception e) {
            throw new IllegalStateException("the connection killer stopped", e);
        }
    }
}
