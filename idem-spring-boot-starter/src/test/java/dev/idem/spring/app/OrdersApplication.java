package dev.idem.spring.app;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.context.ApplicationListener;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;

/**
 * A small Spring Boot web application with idem's starter, as a user writes it: controllers with
 * {@code @Idempotent}, the application's own DataSource ({@code spring.datasource.url}), a meter
 * registry. Tests start it in-process, or in a child JVM through {@link #main} to kill it.
 *
 * <p>Test-only properties: {@code orders.effects-file} (every handler run is also appended there, so
 * effects survive the process) and {@code orders.port-file} (the HTTP port is written there once the
 * server listens).
 */
@SpringBootApplication
public class OrdersApplication {

    public static void main(String[] args) {
        SpringApplication.run(OrdersApplication.class, args);
    }

    @Bean
    SimpleMeterRegistry meterRegistry() {
        return new SimpleMeterRegistry();
    }

    @Bean
    Effects effects(Environment environment) {
        String file = environment.getProperty("orders.effects-file");
        return new Effects(file == null ? null : Path.of(file));
    }

    @Bean
    Gate gate() {
        return new Gate();
    }

    /**
     * Writes the port atomically, so a reader never sees half of it. Once the application is ready, from
     * {@code local.server.port}: the same on every Boot line (the web server's event moved in Boot 4).
     */
    @Bean
    ApplicationListener<ApplicationReadyEvent> portFileWriter(Environment environment) {
        return event -> {
            String file = environment.getProperty("orders.port-file");
            if (file == null) {
                return;
            }
            try {
                Path target = Path.of(file);
                Path temporary = target.resolveSibling(target.getFileName() + ".tmp");
                Files.writeString(temporary, environment.getRequiredProperty("local.server.port"), StandardCharsets.US_ASCII);
                Files.move(temporary, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        };
    }
}
