package dev.idem.demo.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The gateway as the lab runs it: its own JVM, its own SQLite file, killed with SIGKILL and started again. */
class GatewayProcessTest {
    private static final Pattern LISTENING = Pattern.compile("listening on (http://\\S+)");

    @TempDir
    Path dataDir;

    @Test
    void aChargeSurvivesSigkillAndItsRetryAfterRestartIsAReplay() throws Exception {
        Process first = startGateway();
        String firstBody;
        try {
            GatewayClient gateway = new GatewayClient(baseUrl(first));
            HttpResponse<String> charged = gateway.charge("key-durable", GatewayClient.body(4200, "EUR", "card-durable"));
            assertThat(charged.statusCode()).isEqualTo(201);
            firstBody = charged.body();
        } finally {
            first.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
        assertThat(first.exitValue()).as("killed by SIGKILL").isEqualTo(137);

        Process second = startGateway();
        try {
            GatewayClient gateway = new GatewayClient(baseUrl(second));
            HttpResponse<String> retry = gateway.charge("key-durable", GatewayClient.body(4200, "EUR", "card-durable"));
            assertThat(retry.statusCode()).isEqualTo(201);
            assertThat(retry.headers().firstValue("Idempotent-Replayed")).hasValue("true");
            assertThat(retry.body()).isEqualTo(firstBody);
            assertThat(gateway.ledger().get("count").intValue()).isEqualTo(1);
        } finally {
            second.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
        assertThat(Files.exists(dataDir.resolve(GatewayDatabase.SQLITE_FILE))).isTrue();
    }

    private Process startGateway() throws IOException {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        return new ProcessBuilder(List.of(java, "-Xmx256m", "-cp", System.getProperty("java.class.path"),
                CardGatewayMain.class.getName(), "--port", "0", "--data-dir", dataDir.toString()))
                .redirectErrorStream(true)
                .start();
    }

    /** Reads the start-up line; the rest of the output is drained so the child never blocks on a full pipe. */
    private static String baseUrl(Process process) throws Exception {
        BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
        CompletableFuture<String> url = CompletableFuture.supplyAsync(() -> {
            try {
                String line;
                while ((line = out.readLine()) != null) {
                    Matcher m = LISTENING.matcher(line);
                    if (m.find()) {
                        return m.group(1);
                    }
                }
                throw new IllegalStateException("the gateway exited before it listened");
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
        });
        String found = url.get(30, TimeUnit.SECONDS);
        CompletableFuture.runAsync(() -> {
            try {
                out.transferTo(java.io.Writer.nullWriter());
            } catch (IOException ignored) {
                // The process was killed.
            }
        });
        return found;
    }
}
