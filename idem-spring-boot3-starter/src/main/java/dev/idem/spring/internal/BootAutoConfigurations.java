package dev.idem.spring.internal;

/**
 * The names of Spring Boot 3's auto-configurations that idem's are ordered after (in
 * spring-boot-autoconfigure, and in spring-boot-actuator-autoconfigure for metrics and OpenTelemetry).
 * Constants, so that the {@code afterName} attributes that use them hold the text and this class is not
 * needed at run time. idem-spring-boot-starter has a class of this name with Boot 4's names.
 */
public final class BootAutoConfigurations {
    public static final String DATA_SOURCE = "org.springframework.boot.autoconfigure.jdbc.DataSourceAutoConfiguration";
    public static final String DATA_SOURCE_TRANSACTION_MANAGER =
            "org.springframework.boot.autoconfigure.jdbc.DataSourceTransactionManagerAutoConfiguration";
    public static final String METRICS = "org.springframework.boot.actuate.autoconfigure.metrics.MetricsAutoConfiguration";
    public static final String COMPOSITE_METER_REGISTRY =
            "org.springframework.boot.actuate.autoconfigure.metrics.CompositeMeterRegistryAutoConfiguration";
    public static final String SIMPLE_METRICS_EXPORT =
            "org.springframework.boot.actuate.autoconfigure.metrics.export.simple.SimpleMetricsExportAutoConfiguration";
    public static final String KAFKA = "org.springframework.boot.autoconfigure.kafka.KafkaAutoConfiguration";
    public static final String RABBIT = "org.springframework.boot.autoconfigure.amqp.RabbitAutoConfiguration";
    public static final String OPENTELEMETRY_SDK = "org.springframework.boot.actuate.autoconfigure.opentelemetry.OpenTelemetryAutoConfiguration";

    private BootAutoConfigurations() {
    }
}
