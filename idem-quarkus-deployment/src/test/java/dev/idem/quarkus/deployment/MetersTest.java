package dev.idem.quarkus.deployment;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.IdemListener;
import dev.idem.Scope;
import dev.idem.jakarta.rest.Idempotent;
import dev.idem.micrometer.MicrometerIdemListener;
import dev.idem.testing.RealServices;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.quarkus.test.QuarkusUnitTest;
import io.quarkus.test.common.http.TestHTTPResource;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.core.Response;
import java.net.URL;
import java.net.http.HttpResponse;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * With quarkus-micrometer the engine counts on the application's registry, with the starter's meter
 * names and tags (idem-micrometer's listener), and an application's own {@code IdemListener} bean is
 * told of the same events: real HTTP, the JDBC store on PostgreSQL.
 */
class MetersTest {
    @RegisterExtension
    static final QuarkusUnitTest APP = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Metered.class, Registry.class, ReplayLog.class, Http.class))
            .overrideConfigKey("quarkus.datasource.db-kind", "postgresql")
            .overrideConfigKey("quarkus.datasource.jdbc.url", RealServices.postgresUrl())
            .overrideConfigKey("quarkus.devservices.enabled", "false")
            .overrideConfigKey("quarkus.http.test-port", "0")
            .overrideConfigKey("quarkus.idem.jdbc.table-name", "idem_quarkus_meters");

    @TestHTTPResource
    URL base;

    @Inject
    MeterRegistry registry; // Quarkus' root registry, the one the application's code counts on

    @Inject
    ReplayLog replayLog;

    @Test
    void aCoveredRequestAndItsRetryAreCountedOnTheApplicationsRegistryAndToldToItsOwnListener() throws Exception {
        String key = UUID.randomUUID().toString();
        assertThat(Http.post(base.toString(), "/metered", key, "{}").statusCode()).isEqualTo(201);
        HttpResponse<String> retry = Http.post(base.toString(), "/metered", key, "{}");
        assertThat(retry.headers().firstValue("Idempotent-Replayed")).hasValue("true");

        assertThat(claims("acquired")).isEqualTo(1);
        assertThat(claims("replayed")).isEqualTo(1);
        assertThat(registry.find(MicrometerIdemListener.CLAIMS).tag(MicrometerIdemListener.OUTCOME_TAG, "mismatch").counters()).isEmpty();
        assertThat(registry.find(MicrometerIdemListener.LEASE_LOST).counter()).as("registered up front").isNotNull();
        assertThat(replayLog.replays).as("the application's listener, composed with the meters").hasValue(1);
    }

    @Test
    void theOperationTagIsTheResourcesRouteTemplateNotTheRequestsPath() throws Exception {
        assertThat(Http.post(base.toString(), "/metered/1", UUID.randomUUID().toString(), "{}").statusCode()).isEqualTo(201);
        assertThat(Http.post(base.toString(), "/metered/2", UUID.randomUUID().toString(), "{}").statusCode()).isEqualTo(201);

        assertThat(registry.find(MicrometerIdemListener.CLAIMS).meters())
                .extracting(meter -> meter.getId().getTag(MicrometerIdemListener.OPERATION_TAG))
                .filteredOn(operation -> operation.startsWith("POST /metered/"))
                .containsOnly("POST /metered/{id}");
        assertThat(registry.get(MicrometerIdemListener.CLAIMS)
                .tags(MicrometerIdemListener.OUTCOME_TAG, "acquired", MicrometerIdemListener.OPERATION_TAG, "POST /metered/{id}")
                .counter().count()).isEqualTo(2);
    }

    private double claims(String outcome) {
        return registry.get(MicrometerIdemListener.CLAIMS)
                .tags(MicrometerIdemListener.OUTCOME_TAG, outcome, MicrometerIdemListener.OPERATION_TAG, "POST /metered")
                .counter().count();
    }

    @Path("/metered")
    public static class Metered {
        @POST
        @Idempotent
        @Consumes("application/json")
        public Response create(String body) {
            return Response.status(201).entity("{\"id\":\"" + UUID.randomUUID() + "\"}").type("application/json").build();
        }

        @POST
        @Path("/{id}")
        @Idempotent
        @Consumes("application/json")
        public Response update(@PathParam("id") String id, String body) {
            return Response.status(201).build();
        }
    }

    /** A registry under Quarkus' root one (which has none without a registry extension), as Prometheus' would be. */
    @Singleton
    public static class Registry {
        @Produces
        @Singleton
        SimpleMeterRegistry simpleMeterRegistry() {
            return new SimpleMeterRegistry();
        }
    }

    // sample: quarkus-listener
    @Singleton
    public static class ReplayLog implements IdemListener {   // a bean: the engine tells it too
        final AtomicInteger replays = new AtomicInteger();

        @Override
        public void replayed(Scope scope) {
            replays.incrementAndGet();                      // scope.operation(): "POST /metered"
        }
    }
    // end sample
}
