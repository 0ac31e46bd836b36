package dev.idem.docs.samples.starter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.jdbc.Sqlite;
import dev.idem.spring.IdempotentMethodMismatchException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.SpringApplication;
import org.springframework.context.ConfigurableApplicationContext;

/** The starter's samples in a real Spring Boot application (Tomcat, Spring MVC), its DataSource on a SQLite file. */
class StarterSamplesTest {
    @TempDir
    static Path data;
    private static ConfigurableApplicationContext app;
    private static URI base;
    private final HttpClient http = HttpClient.newHttpClient();

    @BeforeAll
    static void start() {
        app = SpringApplication.run(StarterSampleApplication.class,
                "--server.port=0", "--server.address=127.0.0.1", "--spring.main.banner-mode=off", "--logging.level.root=WARN",
                "--spring.datasource.url=" + Sqlite.url(data.resolve("app.db")));
        base = URI.create("http://127.0.0.1:" + app.getEnvironment().getProperty("local.server.port"));
    }

    @AfterAll
    static void stop() {
        if (app != null) {
            app.close();
        }
    }

    @Test
    @DisplayName("readme-quickstart and http-starter-endpoint: the key is required; a retry gets the stored 201, replayed, and pays once")
    void quickstart() throws Exception {
        HttpResponse<String> first = post("/payments", "pay-1", "{\"amount\":100,\"currency\":\"EUR\"}");
        HttpResponse<String> retry = post("/payments", "pay-1", "{\"amount\":100,\"currency\":\"EUR\"}");
        HttpResponse<String> keyless = post("/payments", null, "{\"amount\":100,\"currency\":\"EUR\"}");

        assertThat(first.statusCode()).isEqualTo(201);
        assertThat(first.body()).contains("\"id\":\"pay_1\"");
        assertThat(retry.statusCode()).isEqualTo(201);
        assertThat(retry.body()).isEqualTo(first.body());
        assertThat(retry.headers().firstValue("Idempotent-Replayed")).contains("true");
        assertThat(keyless.statusCode()).isEqualTo(400);
        assertThat(app.getBean(Payments.class).charged()).isEqualTo(1);
    }

    @Test
    @DisplayName("http-starter-transactional: the order row and the stored response commit together; a retry replays and writes no second row")
    void transactional() throws Exception {
        HttpResponse<String> first = post("/orders", "order-1", "{\"item\":\"book\"}");
        HttpResponse<String> retry = post("/orders", "order-1", "{\"item\":\"book\"}");

        assertThat(first.statusCode()).isEqualTo(201);
        assertThat(retry.body()).isEqualTo(first.body());
        assertThat(retry.headers().firstValue("Idempotent-Replayed")).contains("true");
        assertThat(app.getBean(Orders.class).count()).isEqualTo(1);
    }

    @Test
    @DisplayName("http-starter-method: a repeated call with the same order id returns the stored shipment and makes no second label")
    void idempotentMethod() throws Exception {
        Shipments shipments = app.getBean(Shipments.class);
        Shipments.Shipment first = shipments.ship(new Shipments.Order("order-7", "1 Main St"));
        Shipments.Shipment repeat = shipments.ship(new Shipments.Order("order-7", "1 Main St"));

        assertThat(repeat).isEqualTo(first);
        assertThat(shipments.labels()).isEqualTo(1);
        assertThatThrownBy(() -> shipments.ship(new Shipments.Order("order-7", "2 Other Rd")))
                .isInstanceOf(IdempotentMethodMismatchException.class);
    }

    private HttpResponse<String> post(String path, String key, String json) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(base.resolve(path)).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(json));
        if (key != null) {
            request.header("Idempotency-Key", key);
        }
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }
}
