package dev.idem.quarkus.deployment;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.jakarta.rest.Idempotent;
import dev.idem.opentelemetry.OpenTelemetryIdemListener;
import dev.idem.testing.RealServices;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.sdk.trace.ReadableSpan;
import io.quarkus.test.QuarkusUnitTest;
import io.quarkus.test.common.http.TestHTTPResource;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.core.Response;
import java.net.URL;
import java.net.http.HttpResponse;
import java.util.UUID;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** With quarkus-opentelemetry the engine's claim is an event of the request's server span. */
class TracingTest {
    @RegisterExtension
    static final QuarkusUnitTest APP = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Traced.class, Http.class))
            .overrideConfigKey("quarkus.datasource.db-kind", "postgresql")
            .overrideConfigKey("quarkus.datasource.jdbc.url", RealServices.postgresUrl())
            .overrideConfigKey("quarkus.devservices.enabled", "false")
            .overrideConfigKey("quarkus.http.test-port", "0")
            .overrideConfigKey("quarkus.idem.jdbc.table-name", "idem_quarkus_meters");

    @TestHTTPResource
    URL base;

    @Test
    void theClaimIsAnEventOfTheRequestsSpan() throws Exception {
        HttpResponse<String> response = Http.post(base.toString(), "/traced", UUID.randomUUID().toString(), "{}");

        assertThat(response.statusCode()).isEqualTo(201);
        assertThat(response.body()).isEqualTo("idem.claim acquired POST /traced");
    }

    @Path("/traced")
    public static class Traced {
        @POST
        @Idempotent
        @Consumes("application/json")
        public Response create(String body) {
            // The events the current (server) span has so far: the claim's, added before the method ran.
            String events = ((ReadableSpan) Span.current()).toSpanData().getEvents().stream()
                    .filter(e -> e.getName().startsWith("idem."))
                    .map(e -> e.getName() + " " + e.getAttributes().get(OpenTelemetryIdemListener.OUTCOME) + " " + e.getAttributes().get(OpenTelemetryIdemListener.OPERATION))
                    .collect(Collectors.joining(", "));
            return Response.status(201).entity(events).type("text/plain").build();
        }
    }
}
