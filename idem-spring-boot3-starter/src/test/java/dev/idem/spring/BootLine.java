package dev.idem.spring;

import org.springframework.boot.actuate.autoconfigure.metrics.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.actuate.autoconfigure.metrics.MetricsAutoConfiguration;
import org.springframework.boot.actuate.autoconfigure.metrics.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.web.embedded.netty.NettyReactiveWebServerFactory;

/** What the shared tests need that differs between Boot lines, on Spring Boot 3 (idem-spring-boot-starter has Boot 4's). */
final class BootLine {
    /** Boot's own MeterRegistry auto-configuration (Actuator's). */
    static final Class<?>[] METER_REGISTRY_AUTO_CONFIGURATIONS = {MetricsAutoConfiguration.class,
            CompositeMeterRegistryAutoConfiguration.class, SimpleMetricsExportAutoConfiguration.class};

    /** The Reactor Netty server of a reactive application (WebFluxAppTest). */
    static final Class<?> NETTY_WEB_SERVER_FACTORY = NettyReactiveWebServerFactory.class;

    private BootLine() {
    }
}
