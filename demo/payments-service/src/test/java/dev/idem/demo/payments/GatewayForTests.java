package dev.idem.demo.payments;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.idem.demo.gateway.CardGateway;
import dev.idem.demo.gateway.GatewayConfig;
import dev.idem.jdbc.Sqlite;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** The real card gateway, in the test's JVM on its own SQLite file, and its ledger as the tests read it. */
final class GatewayForTests implements AutoCloseable {
    private static final JsonMapper JSON = JsonMapper.builder().build();

    private final HikariDataSource dataSource;
    private final CardGateway gateway;
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    private GatewayForTests(HikariDataSource dataSource, CardGateway gateway) {
        this.dataSource = dataSource;
        this.gateway = gateway;
    }

    static GatewayForTests start(Path dir) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(Sqlite.url(dir.resolve("gateway.db")));
        config.setMaximumPoolSize(4);
        HikariDataSource dataSource = new HikariDataSource(config);
        return new GatewayForTests(dataSource, CardGateway.start(GatewayConfig.defaults().withReset(true), dataSource));
    }

    String baseUrl() {
        return gateway.baseUrl();
    }

    /** One row of GET /ledger. */
    record Charge(String chargeId, String key, long amount, String currency, String card) {
    }

    List<Charge> ledger() {
        try {
            HttpResponse<String> response = http.send(HttpRequest.newBuilder(URI.create(baseUrl() + "/ledger")).timeout(Duration.ofSeconds(10)).build(),
                    HttpResponse.BodyHandlers.ofString());
            if (response.statusCode() != 200) {
                throw new IllegalStateException("GET /ledger answered " + response.statusCode());
            }
            List<Charge> charges = new ArrayList<>();
            for (JsonNode row : JSON.readTree(response.body()).get("charges")) {
                charges.add(new Charge(row.get("chargeId").asString(), row.get("key").asString(), row.get("amount").asLong(),
                        row.get("currency").asString(), row.get("card").asString()));
            }
            return charges;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    List<Charge> chargesOf(String card) {
        return ledger().stream().filter(c -> c.card().equals(card)).toList();
    }

    @Override
    public void close() {
        gateway.close();
        dataSource.close();
    }
}
