package dev.idem.spring;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.idem.Idem;
import dev.idem.spring.reactive.RefusedGetController;
import dev.idem.spring.reactive.app.PaymentsWebFluxApplication;
import dev.idem.testing.NonDurableMemoryStore;
import dev.idem.testing.RealServices;
import dev.idem.testing.TestDatabase;
import dev.idem.webflux.IdempotencyWebFilter;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ReactiveWebApplicationContextRunner;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.support.GenericApplicationContext;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.datasource.DelegatingDataSource;
import org.springframework.web.reactive.config.EnableWebFlux;

/**
 * The starter in a Spring WebFlux application on Reactor Netty and PostgreSQL (on both Boot lines), started once for the
 * class and configured by properties only: {@code @Idempotent} on annotated handlers and
 * {@code IdempotentRouteFilter} on a functional route replay, another body is 422, an unannotated
 * handler is untouched; an {@code @Idempotent} GET handler fails startup and an application's own
 * filter wins (auto-configuration alone, on the same database).
 */
class WebFluxAppTest {
    private static final String KEY = "Idempotency-Key";
    /** HTTP/1.1: the JDK client's h2c upgrade on a request with a body is not what an application's clients send. */
    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    private static TestDatabase db;
    private static ConfigurableApplicationContext app;
    private static URI base;

    @BeforeAll
    static void startApplication() {
        db = RealServices.postgres();
        app = new SpringApplicationBuilder(PaymentsWebFluxApplication.class).web(WebApplicationType.REACTIVE)
                // Reactor Netty, WebFlux's own server, though Tomcat is on the test class path too (Boot 3 would take it)
                .initializers(context -> ((GenericApplicationContext) context).registerBean(BootLine.NETTY_WEB_SERVER_FACTORY))
                .run(
                "--server.port=0",
                "--server.address=127.0.0.1",
                "--spring.datasource.url=" + ((HikariDataSource) db.dataSource()).getJdbcUrl(),
                "--spring.main.banner-mode=off",
                "--logging.level.root=WARN");
        base = URI.create("http://127.0.0.1:" + app.getEnvironment().getProperty("local.server.port"));
    }

    @AfterAll
    static void stopApplication() {
        try {
            if (app != null) {
                app.close();
            }
        } finally {
            db.close();
        }
    }

    @Test
    void anAnnotatedHandlerRunsOnceAndItsRepeatGetsTheSameStatusHeadersAndBodyOffTheEventLoop() throws Exception {
        String key = UUID.randomUUID().toString();
        int before = effects().count("pay");

        HttpResponse<String> first = post("/payments/acc-1", key, "{\"amount\": 5}");
        HttpResponse<String> repeat = post("/payments/acc-1", key, "{\"amount\": 5}");

        assertThat(first.statusCode()).isEqualTo(201);
        assertThat(first.headers().firstValue("Idempotent-Replayed")).isEmpty();
        assertThat(repeat.statusCode()).isEqualTo(201);
        assertThat(repeat.headers().firstValue("Idempotent-Replayed")).hasValue("true");
        assertThat(repeat.body()).isEqualTo(first.body()).contains("\"account\":\"acc-1\"");
        assertThat(repeat.headers().firstValue("X-Payment-Run")).isEqualTo(first.headers().firstValue("X-Payment-Run"));
        assertThat(effects().count("pay") - before).as("one effect").isEqualTo(1);
        assertThat(scopesOfKey(key)).as("the handler's URL pattern is the route, as on Spring MVC")
                .singleElement().asString().endsWith(" POST /payments/{account}");
        assertThat(app.getBean(PaymentsWebFluxApplication.EngineThreads.class).names()).as("the store's calls: boundedElastic")
                .isNotEmpty().allSatisfy(name -> assertThat(name).startsWith("boundedElastic-"));
    }

    @Test
    void anotherBodyUnderTheSameKeyIs422AndAMissingKeyIs400() throws Exception {
        String key = UUID.randomUUID().toString();
        int before = effects().count("pay");

        assertThat(post("/payments/acc-2", key, "{\"amount\": 5}").statusCode()).isEqualTo(201);
        HttpResponse<String> other = post("/payments/acc-2", key, "{\"amount\": 6}");
        HttpResponse<String> keyless = post("/payments/acc-2", null, "{\"amount\": 5}");

        assertThat(other.statusCode()).isEqualTo(422);
        assertThat(other.headers().firstValue("Content-Type")).hasValueSatisfying(type -> assertThat(type).startsWith("application/problem+json"));
        assertThat(other.body()).contains("urn:idem:problem:key-mismatch");
        assertThat(keyless.statusCode()).isEqualTo(400);
        assertThat(keyless.body()).contains("urn:idem:problem:key-missing");
        assertThat(effects().count("pay") - before).as("only the first ran").isEqualTo(1);
    }

    @Test
    void aFunctionalRouteWithTheRouteFilterRunsOnceAndReplays() throws Exception {
        String key = UUID.randomUUID().toString();
        int before = effects().count("refund");

        HttpResponse<String> first = post("/refunds/r-1", key, "full");
        HttpResponse<String> repeat = post("/refunds/r-1", key, "full");

        assertThat(first.statusCode()).isEqualTo(201);
        assertThat(repeat.statusCode()).isEqualTo(201);
        assertThat(repeat.headers().firstValue("Idempotent-Replayed")).hasValue("true");
        assertThat(repeat.body()).isEqualTo(first.body()).contains("\"refund\":\"r-1\"");
        assertThat(effects().count("refund") - before).as("one effect").isEqualTo(1);
        assertThat(scopesOfKey(key)).as("the route pattern is the route").singleElement().asString().endsWith(" POST /refunds/{id}");
        assertThat(post("/refunds/r-1", key, "half").statusCode()).as("another body").isEqualTo(422);
    }

    @Test
    void anUnannotatedHandlerIsUntouched() throws Exception {
        String key = UUID.randomUUID().toString();
        int before = effects().count("note");

        HttpResponse<String> first = post("/notes", key, "hello");
        HttpResponse<String> second = post("/notes", key, "hello");
        HttpResponse<String> keyless = post("/notes", null, "hello");

        assertThat(List.of(first.statusCode(), second.statusCode(), keyless.statusCode())).containsOnly(200);
        assertThat(second.headers().firstValue("Idempotent-Replayed")).isEmpty();
        assertThat(effects().count("note") - before).as("every request ran").isEqualTo(3);
        assertThat(scopesOfKey(key)).as("nothing stored").isEmpty();
    }

    @Test
    void theStartersFilterRunsAtTheServletFiltersOrder() {
        IdempotencyWebFilter filter = app.getBean(IdempotencyWebFilter.class);
        assertThat(filter.getOrder()).as("idem.filter.order: after Spring Security's -100").isEqualTo(-90);
    }

    @Test
    void anIdempotentGetHandlerFailsStartupNamingIt() {
        contexts().withUserConfiguration(WebFlux.class).withBean(RefusedGetController.class).run(context ->
                assertThat(context).getFailure()
                        .hasMessageContaining("@Idempotent on " + RefusedGetController.class.getName() + "#balance")
                        .hasMessageContaining("a GET handler is safe"));
    }

    @Test
    void theStartersFilterBacksOffForTheApplicationsOwn() {
        contexts().withUserConfiguration(WebFlux.class, OwnFilter.class).run(context -> {
            assertThat(context).hasNotFailed().hasSingleBean(IdempotencyWebFilter.class).hasBean("myFilter");
            assertThat(context).doesNotHaveBean("idempotencyWebFilter");
        });
        contexts().withUserConfiguration(WebFlux.class).run(context ->
                assertThat(context).hasNotFailed().hasSingleBean(IdempotencyWebFilter.class).hasBean("idempotencyWebFilter"));
    }

    @Test
    void aReactiveApplicationNeedsNeitherTheServletApiNorSpringMvc() {
        contexts().withClassLoader(new FilteredClassLoader("jakarta.servlet", "org.springframework.web.servlet"))
                .withUserConfiguration(WebFlux.class).run(context -> assertThat(context).hasNotFailed()
                        .hasSingleBean(IdempotencyWebFilter.class).doesNotHaveBean("idempotencyFilterRegistration"));
    }

    /** Idem's auto-configuration alone in a reactive context, on the test's database. */
    private static ReactiveWebApplicationContextRunner contexts() {
        return new ReactiveWebApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(IdemAutoConfiguration.class, IdemWebFluxAutoConfiguration.class))
                .withBean(DataSource.class, () -> new DelegatingDataSource(db.dataSource())); // the test's pool outlives it
    }

    @Configuration(proxyBeanMethods = false)
    @EnableWebFlux
    static class WebFlux {
    }

    @Configuration(proxyBeanMethods = false)
    static class OwnFilter {
        @Bean
        IdempotencyWebFilter myFilter() {
            return IdempotencyWebFilter.builder(Idem.builder().store(new NonDurableMemoryStore()).build()).build();
        }
    }

    private static PaymentsWebFluxApplication.Effects effects() {
        return app.getBean(PaymentsWebFluxApplication.Effects.class);
    }

    private static HttpResponse<String> post(String path, String key, String body) throws IOException, InterruptedException {
        HttpRequest.Builder request = HttpRequest.newBuilder(base.resolve(path))
                .header("Content-Type", body.startsWith("{") ? "application/json" : "text/plain")
                .timeout(Duration.ofSeconds(60)) // a hang fails the test instead of the build
                .POST(HttpRequest.BodyPublishers.ofString(body));
        if (key != null) {
            request.header(KEY, key);
        }
        return HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    private static List<String> scopesOfKey(String key) throws SQLException {
        List<String> scopes = new ArrayList<>();
        try (Connection c = db.dataSource().getConnection();
             PreparedStatement ps = c.prepareStatement("SELECT scope FROM idem_record WHERE idem_key = ?")) {
            ps.setString(1, key);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    scopes.add(rs.getString(1));
                }
            }
        }
        return scopes;
    }
}
