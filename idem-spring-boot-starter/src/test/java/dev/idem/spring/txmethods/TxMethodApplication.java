package dev.idem.spring.txmethods;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * A Spring Boot application without a web server whose {@code @IdempotentMethod} methods are
 * {@code @Transactional} ({@link Orders}) or called from a {@code @Transactional} method
 * ({@link Checkout}), on the application's DataSource.
 */
@SpringBootApplication
public class TxMethodApplication {

    public static ConfigurableApplicationContext start(String... arguments) {
        SpringApplication application = new SpringApplication(TxMethodApplication.class);
        application.setWebApplicationType(WebApplicationType.NONE);
        return application.run(arguments);
    }
}
