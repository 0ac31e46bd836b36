package dev.idem.quarkus.deployment;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.jakarta.rest.IdempotencyFeature;
import dev.idem.jakarta.rest.Idempotent;
import dev.idem.testing.RealServices;
import io.quarkus.runtime.BlockingOperationControl;
import io.quarkus.test.QuarkusUnitTest;
import io.quarkus.test.common.http.TestHTTPResource;
import jakarta.annotation.Priority;
import jakarta.inject.Inject;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.ext.Provider;
import java.net.URL;
import java.net.http.HttpResponse;
import java.util.UUID;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code @Idempotent} on a Quarkus REST resource, over real HTTP and a JDBC store on the application's
 * PostgreSQL datasource: the answers of docs/http.md, and the thread the filters run on.
 */
class IdempotentResourceTest {
    @RegisterExtension
    static final QuarkusUnitTest APP = new QuarkusUnitTest()
            .withApplicationRoot(jar -> jar.addClasses(Orders.class, ThreadProbe.class, EffectsTable.class, Http.class))
            .overrideConfigKey("quarkus.datasource.db-kind", "postgresql")
            .overrideConfigKey("quarkus.datasource.jdbc.url", RealServices.postgresUrl())
            .overrideConfigKey("quarkus.devservices.enabled", "false")
            .overrideConfigKey("quarkus.http.test-port", "0")
            .overrideConfigKey("quarkus.idem.jdbc.table-name", "idem_quarkus_http");

    @TestHTTPResource
    URL base;

    @Inject
    DataSource dataSource;

    @Test
    void aRetryGetsTheStoredResponseAndTheEffectHappensOnce() throws Exception {
        String key = UUID.randomUUID().toString();
        HttpResponse<String> first = Http.post(base.toString(), "/orders", key, "{\"item\": \"book\", \"qty\": 1}");
        HttpResponse<String> retry = Http.post(base.toString(), "/orders", key, "{\"qty\":1,\"item\":\"book\"}"); // same JSON

        assertThat(first.statusCode()).isEqualTo(201);
        assertThat(first.headers().firstValue("Idempotent-Replayed")).isEmpty();
        assertThat(retry.statusCode()).isEqualTo(201);
        assertThat(retry.body()).isEqualTo(first.body());
        assertThat(retry.headers().firstValue("Content-Type")).hasValueSatisfying(type -> assertThat(type).startsWith("application/json"));
        assertThat(retry.headers().firstValue("Idempotent-Replayed")).hasValue("true");
        assertThat(Http.effects(dataSource, key)).isEqualTo(1);
    }

    @Test
    void theSameKeyWithAnotherBodyIsAnswered422AndDoesNotRun() throws Exception {
        String key = UUID.randomUUID().toString();
        assertThat(Http.post(base.toString(), "/orders", key, "{\"item\":\"book\"}").statusCode()).isEqualTo(201);

        HttpResponse<String> other = Http.post(base.toString(), "/orders", key, "{\"item\":\"pen\"}");

        assertThat(other.statusCode()).isEqualTo(422);
        assertThat(other.headers().firstValue("Content-Type")).hasValue("application/problem+json");
        assertThat(Http.effects(dataSource, key)).isEqualTo(1);
    }

    @Test
    void aMissingKeyIsAnswered400WhereRequiredAndRunsWhereOptional() throws Exception {
        HttpResponse<String> missing = Http.post(base.toString(), "/orders", null, "{\"item\":\"book\"}");
        assertThat(missing.statusCode()).isEqualTo(400);
        assertThat(missing.headers().firstValue("Content-Type")).hasValue("application/problem+json");
        assertThat(missing.body()).contains("key-missing");

        String marker = "optional-" + UUID.randomUUID();
        assertThat(Http.post(base.toString(), "/orders/optional", null, "{\"marker\":\"" + marker + "\"}").statusCode()).isEqualTo(201);
        assertThat(Http.post(base.toString(), "/orders/optional", null, "{\"marker\":\"" + marker + "\"}").statusCode()).isEqualTo(201);
        assertThat(Http.effects(dataSource, marker)).isEqualTo(2);
    }

    @Test
    void anExceptionNothingMapsGivesTheKeyBackSoTheRetryRunsAgain() throws Exception {
        String key = UUID.randomUUID().toString();
        assertThat(Http.post(base.toString(), "/orders/failing", key, "{}").statusCode()).isEqualTo(500);

        HttpResponse<String> retry = Http.post(base.toString(), "/orders/failing", key, "{}");

        assertThat(retry.statusCode()).isEqualTo(500); // not 409 key-in-use: the key was given back
        assertThat(Http.effects(dataSource, key)).isEqualTo(2);
    }

    @Test
    void theFiltersOfABlockingResourceRunOnAWorkerThreadWhereTheStoreMayBlock() throws Exception {
        ThreadProbe.seen = null;
        assertThat(Http.post(base.toString(), "/orders", UUID.randomUUID().toString(), "{\"item\":\"book\"}").statusCode()).isEqualTo(201);

        assertThat(ThreadProbe.seen).isEqualTo("owner on a thread that may block");
    }

    @Path("/orders")
    public static class Orders {
        @Inject
        DataSource dataSource;

        @POST
        @Idempotent
        @Consumes("application/json")
        public Response create(@HeaderParam("Idempotency-Key") String key, String order) {
            Http.recordEffect(dataSource, key);
            return Response.status(201).entity("{\"order\":\"" + UUID.randomUUID() + "\"}").type("application/json").build();
        }

        @POST
        @Path("/optional")
        @Idempotent(keyRequired = false)
        @Consumes("application/json")
        public Response optional(String body) {
            Http.recordEffect(dataSource, body.replaceAll(".*\"marker\":\"([^\"]+)\".*", "$1"));
            return Response.status(201).build();
        }

        @POST
        @Path("/failing")
        @Idempotent
        @Consumes("application/json")
        public Response failing(@HeaderParam("Idempotency-Key") String key, String body) {
            Http.recordEffect(dataSource, key);
            throw new IllegalStateException("the resource failed");
        }
    }

    /** Bound to the same methods, after idem's request filter: sees the execution it opened, and the thread. */
    @Provider
    @Idempotent
    @Priority(Priorities.USER + 1)
    public static class ThreadProbe implements ContainerRequestFilter {
        static volatile String seen;

        @Override
        public void filter(ContainerRequestContext request) {
            boolean owner = IdempotencyFeature.execution(request).isPresent();
            seen = (owner ? "owner" : "no execution") + " on a thread that " + (BlockingOperationControl.isBlockingAllowed() ? "may block" : "must not block");
        }
    }
}
