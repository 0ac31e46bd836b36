package dev.idem.spring;

import org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.reactor.netty.NettyReactiveWebServerFactory;

/** What the shared tests need that differs between Boot lines, on Spring Boot 4 (idem-spring-boot3-starter has Boot 3's). */
final class BootLine {
    /** Boot's own MeterRegistry auto-configuration (Actuator's, in effect). */
    static final Class<?>[] METER_REGISTRY_AUTO_CONFIGURATIONS = {MetricsAutoConfiguration.class,
            CompositeMeterRegistryAutoConfiguration.class, SimpleMetricsExportAutoConfiguration.class};

    /** The Reactor Netty server of a reactive application (WebFluxAppTest). */
    static final Class<?> NETTY_WEB_SERVER_FACTORY = NettyReactiveWebServerFactory.class;

    private BootLine() {
    }
}
