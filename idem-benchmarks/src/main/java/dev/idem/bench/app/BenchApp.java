package dev.idem.bench.app;

import dev.idem.spring.Idempotent;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Map;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.web.server.context.WebServerInitializedEvent;
import org.springframework.context.ApplicationListener;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;

/**
 * The endpoint benchmark's server: a Spring Boot 4 web application (Tomcat, Spring MVC, Hikari) with
 * idem's starter, as a user writes it. Two handlers do the same work — insert one row and answer 201
 * with its id — one plain, one {@code @Idempotent}. Run in its own JVM by the benchmark; writes its
 * port to {@code bench.port-file} once it listens.
 */
@SpringBootApplication
public class BenchApp {

    public static void main(String[] args) {
        SpringApplication.run(BenchApp.class, args);
    }

    @Bean
    ApplicationListener<WebServerInitializedEvent> portFileWriter(Environment environment) {
        return event -> {
            String file = environment.getProperty("bench.port-file");
            if (file == null) {
                return;
            }
            try {
                Path target = Path.of(file);
                Path temporary = target.resolveSibling(target.getFileName() + ".tmp");
                Files.writeString(temporary, Integer.toString(event.getWebServer().getPort()), StandardCharsets.US_ASCII);
                Files.move(temporary, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        };
    }

    @RestController
    static class OrdersController {
        private final JdbcTemplate jdbc;

        OrdersController(JdbcTemplate jdbc) {
            this.jdbc = jdbc;
        }

        @PostMapping("/plain/orders")
        ResponseEntity<Map<String, Object>> plain(@RequestBody Map<String, Object> order) {
            return insert(order);
        }

        @PostMapping("/idem/orders")
        @Idempotent
        ResponseEntity<Map<String, Object>> idempotent(@RequestBody Map<String, Object> order) {
            return insert(order);
        }

        private ResponseEntity<Map<String, Object>> insert(Map<String, Object> order) {
            String item = String.valueOf(order.get("item"));
            int amount = ((Number) order.getOrDefault("amount", 0)).intValue();
            Long id = jdbc.queryForObject("INSERT INTO bench_order (item, amount) VALUES (?, ?) RETURNING id", Long.class, item, amount);
            return ResponseEntity.status(HttpStatus.CREATED).body(Map.of("id", id, "item", item, "amount", amount));
        }
    }
}
