package dev.idem.quarkus.deployment;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.testing.RealServices;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.test.QuarkusUnitTest;
import io.quarkus.test.common.http.TestHTTPResource;
import jakarta.inject.Inject;
import java.net.URL;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** {@code quarkus.idem.metrics.enabled=false}: with quarkus-micrometer present, the engine registers no meter. */
class MetersDisabledTest {
    @RegisterExtension
    static final QuarkusUnitTest APP = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(MetersTest.Metered.class, MetersTest.Registry.class, Http.class))
            .overrideConfigKey("quarkus.datasource.db-kind", "postgresql")
            .overrideConfigKey("quarkus.datasource.jdbc.url", RealServices.postgresUrl())
            .overrideConfigKey("quarkus.devservices.enabled", "false")
            .overrideConfigKey("quarkus.http.test-port", "0")
            .overrideConfigKey("quarkus.idem.jdbc.table-name", "idem_quarkus_meters")
            .overrideConfigKey("quarkus.idem.metrics.enabled", "false");

    @TestHTTPResource
    URL base;

    @Inject
    MeterRegistry registry;

    @Test
    void switchedOffTheEngineRegistersNoMeter() throws Exception {
        assertThat(Http.post(base.toString(), "/metered", UUID.randomUUID().toString(), "{}").statusCode()).isEqualTo(201);

        assertThat(registry.getMeters()).as("meters named idem.*")
                .noneSatisfy(meter -> assertThat(meter.getId().getName()).startsWith("idem."));
    }
}
