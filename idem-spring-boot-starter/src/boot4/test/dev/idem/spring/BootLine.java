package dev.idem.spring;

import org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration;

/** What the shared tests need that differs between Boot lines, on Spring Boot 4 (idem-spring-boot3-starter has Boot 3's). */
final class BootLine {
    /** Boot's own MeterRegistry auto-configuration (Actuator's, in effect). */
    static final Class<?>[] METER_REGISTRY_AUTO_CONFIGURATIONS = {MetricsAutoConfiguration.class,
            CompositeMeterRegistryAutoConfiguration.class, SimpleMetricsExportAutoConfiguration.class};

    private BootLine() {
    }
}
