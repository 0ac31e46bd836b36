package dev.idem.spring.methods;

import dev.idem.IdemListener;
import dev.idem.Scope;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;

/**
 * A Spring Boot application without a web server whose service has {@code @IdempotentMethod}
 * methods ({@link Payments}), on the application's DataSource ({@code spring.datasource.url}).
 * {@link #main} runs one call in a child JVM for the crash test (see {@link PaymentsChild}).
 */
@SpringBootApplication
public class MethodApplication {

    public static ConfigurableApplicationContext start(String... arguments) {
        SpringApplication application = new SpringApplication(MethodApplication.class);
        application.setWebApplicationType(WebApplicationType.NONE);
        return application.run(arguments);
    }

    /** Two beans of one class: their default scopes differ by the bean's name. */
    @Bean
    Ledger eurLedger() {
        return new Ledger("EUR");
    }

    @Bean
    Ledger usdLedger() {
        return new Ledger("USD");
    }

    /** Counts the engine's in-progress answers per scope, so a test knows when callers are waiting. */
    @Bean
    Conflicts conflicts() {
        return new Conflicts();
    }

    /** An {@link IdemListener} bean: the starter hands it to the engine. */
    public static final class Conflicts implements IdemListener {
        private final Map<String, AtomicInteger> byScope = new ConcurrentHashMap<>();

        @Override
        public void inProgress(Scope scope) {
            byScope.computeIfAbsent(scope.value(), s -> new AtomicInteger()).incrementAndGet();
        }

        public int of(String scope) {
            AtomicInteger count = byScope.get(scope);
            return count == null ? 0 : count.get();
        }
    }
}
