package dev.idem.docs.samples.starter;

import org.springframework.boot.autoconfigure.SpringBootApplication;

/** The Spring Boot application the starter's samples run in: their controllers, on the application's DataSource. */
@SpringBootApplication
public class StarterSampleApplication {
}
