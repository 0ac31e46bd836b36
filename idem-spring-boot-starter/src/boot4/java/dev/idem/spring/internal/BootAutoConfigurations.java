package dev.idem.spring.internal;

/**
 * The names of Spring Boot 4's auto-configurations that idem's are ordered after (Boot 4 moved them
 * into modules of their own, under new packages). Constants, so that the {@code afterName} attributes
 * that use them hold the text and this class is not needed at run time. The Boot 3 starter has a class
 * of this name with Boot 3's names.
 */
public final class BootAutoConfigurations {
    public static final String DATA_SOURCE = "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration";
    public static final String DATA_SOURCE_TRANSACTION_MANAGER =
            "org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration";
    public static final String METRICS = "org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration";
    public static final String COMPOSITE_METER_REGISTRY =
            "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration";
    public static final String SIMPLE_METRICS_EXPORT =
            "org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration";
    public static final String KAFKA = "org.springframework.boot.kafka.autoconfigure.KafkaAutoConfiguration";
    public static final String RABBIT = "org.springframework.boot.amqp.autoconfigure.RabbitAutoConfiguration";
    public static final String OPENTELEMETRY_SDK = "org.springframework.boot.opentelemetry.autoconfigure.OpenTelemetrySdkAutoConfiguration";

    private BootAutoConfigurations() {
    }
}
