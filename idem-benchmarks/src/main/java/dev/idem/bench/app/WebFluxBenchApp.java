package dev.idem.bench.app;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.idem.Idem;
import dev.idem.jdbc.JdbcIdempotencyStore;
import dev.idem.webflux.IdempotencyWebFilter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.Map;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.server.reactive.HttpHandler;
import org.springframework.http.server.reactive.ReactorHttpHandlerAdapter;
import org.springframework.web.reactive.function.server.RouterFunction;
import org.springframework.web.reactive.function.server.RouterFunctions;
import org.springframework.web.reactive.function.server.ServerRequest;
import org.springframework.web.reactive.function.server.ServerResponse;
import org.springframework.web.server.adapter.WebHttpHandlerBuilder;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;
import reactor.netty.DisposableServer;
import reactor.netty.http.server.HttpServer;
import tools.jackson.databind.JsonNode;

/**
 * The WebFlux endpoint benchmark's server: Spring WebFlux on Reactor Netty (functional routes, no
 * Spring Boot), Hikari, and idem-webflux's {@link IdempotencyWebFilter} on {@code POST /idem/orders}
 * only. Both routes do the same work — insert one row on {@code boundedElastic} (JDBC blocks) and
 * answer 201 with its id — so the ratio of the two is what the filter adds. Run in its own JVM by the
 * benchmark; writes its port to the file named by {@code --port-file} once it listens.
 *
 * <p>Arguments: {@code --url=<jdbc url> --pool=<size> --port-file=<path>}.
 */
public final class WebFluxBenchApp {
    private WebFluxBenchApp() {
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> options = options(args);
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(options.get("url"));
        config.setMaximumPoolSize(Integer.parseInt(options.getOrDefault("pool", "10")));
        HikariDataSource dataSource = new HikariDataSource(config);
        JdbcIdempotencyStore store = JdbcIdempotencyStore.builder(dataSource).build();
        store.migrate();
        Idem idem = Idem.builder().store(store).build();
        IdempotencyWebFilter filter = IdempotencyWebFilter.builder(idem).route("POST", "/idem/orders").build();

        RouterFunction<ServerResponse> routes = RouterFunctions.route()
                .POST("/plain/orders", request -> insert(dataSource, request))
                .POST("/idem/orders", request -> insert(dataSource, request))
                .build();
        HttpHandler http = WebHttpHandlerBuilder.webHandler(RouterFunctions.toWebHandler(routes)).filter(filter).build();
        DisposableServer server = HttpServer.create().host("127.0.0.1").port(0).handle(new ReactorHttpHandlerAdapter(http)).bindNow();
        writePort(Path.of(options.get("port-file")), server.port());
        server.onDispose().block();
    }

    private static Mono<ServerResponse> insert(HikariDataSource dataSource, ServerRequest request) {
        return request.bodyToMono(JsonNode.class)
                .publishOn(Schedulers.boundedElastic())
                .map(order -> insertRow(dataSource, order.get("item").asString(), order.get("amount").asInt()))
                .flatMap(id -> ServerResponse.status(HttpStatus.CREATED).contentType(MediaType.APPLICATION_JSON)
                        .bodyValue("{\"id\":" + id + "}"));
    }

    private static long insertRow(HikariDataSource dataSource, String item, int amount) {
        try (Connection connection = dataSource.getConnection();
             PreparedStatement insert = connection.prepareStatement("INSERT INTO bench_order (item, amount) VALUES (?, ?) RETURNING id")) {
            insert.setString(1, item);
            insert.setInt(2, amount);
            try (ResultSet rs = insert.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        } catch (SQLException e) {
            throw new IllegalStateException("inserting the order failed: " + e.getMessage(), e);
        }
    }

    private static Map<String, String> options(String[] args) {
        Map<String, String> options = new HashMap<>();
        for (String arg : args) {
            int eq = arg.indexOf('=');
            if (!arg.startsWith("--") || eq < 0) {
                throw new IllegalArgumentException("arguments are --name=value, was '" + arg + "'");
            }
            options.put(arg.substring(2, eq), arg.substring(eq + 1));
        }
        for (String required : new String[] {"url", "port-file"}) {
            if (!options.containsKey(required)) {
                throw new IllegalArgumentException("--" + required + " is required");
            }
        }
        return options;
    }

    /** Written whole, then moved into place: the benchmark polls for the file and must not read half of it. */
    private static void writePort(Path file, int port) throws java.io.IOException {
        Path partial = file.resolveSibling(file.getFileName() + ".partial");
        Files.writeString(partial, Integer.toString(port), StandardCharsets.US_ASCII);
        Files.move(partial, file, StandardCopyOption.ATOMIC_MOVE);
    }
}
