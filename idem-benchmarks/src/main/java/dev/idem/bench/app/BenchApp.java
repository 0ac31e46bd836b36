package dev.idem.bench.app;

import dev.idem.Fingerprint;
import dev.idem.Idem;
import dev.idem.IdempotencyKey;
import dev.idem.Outcome;
import dev.idem.Scope;
import dev.idem.StoredResponse;
import dev.idem.jdbc.JdbcIdempotencyStore;
import dev.idem.jdbc.TransactionalIdem;
import dev.idem.spring.Idempotent;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.web.server.context.WebServerInitializedEvent;
import org.springframework.context.ApplicationListener;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.jdbc.core.JdbcTemplate;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.json.JsonMapper;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RestController;

/**
 * The endpoint benchmark's server: a Spring Boot 4 web application (Tomcat, Spring MVC, Hikari) with
 * idem's starter, as a user writes it. The handlers do the same work — insert one row and answer 201
 * with its id — plain, {@code @Idempotent}, {@code @Idempotent(transactional = true)}, and with
 * {@code TransactionalIdem} called in the handler. Run in its own JVM by the benchmark; writes its
 * port to {@code bench.port-file} once it listens.
 */
@SpringBootApplication
public class BenchApp {
    static final ObjectMapper JSON = JsonMapper.builder().build();

    public static void main(String[] args) {
        SpringApplication.run(BenchApp.class, args);
    }

    /**
     * With {@code bench.response-cache=N} the application defines its own store with the
     * completed-response cache; the starter's store backs off. Otherwise the starter's store is used.
     */
    @Bean
    @ConditionalOnProperty("bench.response-cache")
    JdbcIdempotencyStore cachedStore(DataSource dataSource, Environment environment) {
        JdbcIdempotencyStore.Builder builder = JdbcIdempotencyStore.builder(dataSource)
                .responseCache(Integer.parseInt(environment.getProperty("bench.response-cache")));
        Boolean coalesce = environment.getProperty("bench.coalesce-commits", Boolean.class);
        if (coalesce != null) {
            builder.coalesceCommits(coalesce);
        }
        JdbcIdempotencyStore store = builder.build();
        store.migrate();
        return store;
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
        private static final Scope TX_SCOPE = Scope.of("anonymous", "POST /tx/orders");

        private final JdbcTemplate jdbc;
        private final TransactionalIdem tx;

        OrdersController(JdbcTemplate jdbc, Idem idem) {
            this.jdbc = jdbc;
            this.tx = TransactionalIdem.of(idem);
        }

        /**
         * The same work in idem's transactional mode, called from the handler (not the filter): the
         * claim, the row and the stored response commit in one transaction. The fingerprint is the
         * raw body here (the filter canonicalises JSON).
         */
        @PostMapping("/tx/orders")
        ResponseEntity<byte[]> transactional(@RequestHeader("Idempotency-Key") String key, @RequestBody byte[] body) {
            Outcome outcome = tx.execute(TX_SCOPE, IdempotencyKey.parse(key), Fingerprint.builder().part("body", body).build(), c -> {
                Map<?, ?> order = JSON.readValue(body, Map.class);
                String item = String.valueOf(order.get("item"));
                int amount = ((Number) order.get("amount")).intValue();
                long id;
                try (PreparedStatement ps = c.prepareStatement("INSERT INTO bench_order (item, amount) VALUES (?, ?) RETURNING id")) {
                    ps.setString(1, item);
                    ps.setInt(2, amount);
                    try (ResultSet rs = ps.executeQuery()) {
                        rs.next();
                        id = rs.getLong(1);
                    }
                }
                byte[] json = JSON.writeValueAsBytes(Map.of("id", id, "item", item, "amount", amount));
                return StoredResponse.of(201, Map.of("Content-Type", List.of("application/json")), json);
            });
            if (outcome instanceof Outcome.Executed executed) {
                return respond(executed.response(), false);
            }
            if (outcome instanceof Outcome.Replayed replayed) {
                return respond(replayed.response(), true);
            }
            return ResponseEntity.status(outcome instanceof Outcome.Mismatch ? 422 : 409).build();
        }

        private static ResponseEntity<byte[]> respond(StoredResponse response, boolean replayed) {
            ResponseEntity.BodyBuilder b = ResponseEntity.status(response.status()).contentType(MediaType.APPLICATION_JSON);
            if (replayed) {
                b.header("Idempotent-Replayed", "true");
            }
            return b.body(response.body());
        }

        /**
         * The default filter's floor, written by hand: the durable writes idem's rule requires and
         * nothing else. The key made durable before the effect (a claim row, its own commit), the
         * order row, then the response made durable before it is sent (an update, its own commit):
         * three commits with the same durability as the filter's. No fingerprint, no lease, no replay
         * path: what is left between this and {@code /idem/orders} is what idem adds.
         */
        @PostMapping("/floor/orders")
        ResponseEntity<Map<String, Object>> floor(@RequestHeader("Idempotency-Key") String key, @RequestBody Map<String, Object> order) {
            jdbc.update("INSERT INTO bench_floor (idem_key) VALUES (?)", key);
            ResponseEntity<Map<String, Object>> response = insert(order);
            jdbc.update("UPDATE bench_floor SET status = 201, body = ? WHERE idem_key = ?", JSON.writeValueAsBytes(response.getBody()), key);
            return response;
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

        /**
         * The starter's filter in transactional mode: the claim, the handler's JdbcTemplate insert
         * (it finds the transaction's connection) and the stored response commit once.
         */
        @PostMapping("/idemtx/orders")
        @Idempotent(transactional = true)
        ResponseEntity<Map<String, Object>> idempotentTransactional(@RequestBody Map<String, Object> order) {
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
