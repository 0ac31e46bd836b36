package dev.idem.spring.listener.app;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * A Spring Boot application whose Kafka and RabbitMQ listeners write a ledger through
 * {@code @IdempotentListener}; which listeners exist is chosen with {@code ledger.*} properties. The
 * tests run it in a child JVM ({@code LedgerProcess}) or in process.
 */
@SpringBootApplication
public class LedgerApplication {

    public static void main(String[] args) {
        SpringApplication application = new SpringApplication(LedgerApplication.class);
        application.setWebApplicationType(org.springframework.boot.WebApplicationType.NONE);
        application.run(args);
    }
}
