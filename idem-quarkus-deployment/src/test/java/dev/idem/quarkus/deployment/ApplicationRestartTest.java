package dev.idem.quarkus.deployment;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.jakarta.rest.Idempotent;
import dev.idem.testing.RealServices;
import io.quarkus.test.QuarkusDevModeTest;
import jakarta.inject.Inject;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.core.Response;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.UUID;
import javax.sql.DataSource;
import org.jboss.shrinkwrap.api.asset.StringAsset;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * The same key sent before and after the application restarts (Quarkus dev mode's restart on a changed
 * configuration: a new engine, a new store, the record in PostgreSQL): the effect happens once and the
 * retry gets the stored response.
 */
class ApplicationRestartTest {
    private static final int PORT = freePort();

    @RegisterExtension
    static final QuarkusDevModeTest APP = new QuarkusDevModeTest()
            .withApplicationRoot(jar -> jar.addClasses(Payments.class, EffectsTable.class, Http.class)
                    .addAsResource(new StringAsset(String.join("\n",
                            "quarkus.datasource.db-kind=postgresql",
                            "quarkus.datasource.jdbc.url=" + RealServices.postgresUrl(),
                            "quarkus.devservices.enabled=false", // no container runtime to look for: a faster start
                            "quarkus.http.port=" + PORT,
                            "quarkus.idem.jdbc.table-name=idem_quarkus_restart", "")), "application.properties"));

    @Test
    void theSameKeySentAcrossARestartHasItsEffectOnce() throws Exception {
        String base = "http://localhost:" + PORT;
        String key = UUID.randomUUID().toString();
        String firstBoot = get(base + "/payments/boot");
        HttpResponse<String> first = Http.post(base, "/payments", key, "{\"amount\":100}");

        APP.modifyResourceFile("application.properties", properties -> properties + "# changed: dev mode restarts\n");
        String secondBoot = get(base + "/payments/boot"); // the first request after the change restarts the application
        HttpResponse<String> retry = Http.post(base, "/payments", key, "{\"amount\":100}");

        assertThat(secondBoot).isNotEqualTo(firstBoot);
        assertThat(first.statusCode()).isEqualTo(201);
        assertThat(retry.statusCode()).isEqualTo(201);
        assertThat(retry.body()).isEqualTo(first.body());
        assertThat(retry.headers().firstValue("Idempotent-Replayed")).hasValue("true");
        PGSimpleDataSource database = new PGSimpleDataSource();
        database.setURL(RealServices.postgresUrl());
        assertThat(Http.effects(database, key)).isEqualTo(1);
    }

    private static String get(String url) throws IOException, InterruptedException {
        HttpResponse<String> response = Http.send(HttpRequest.newBuilder(URI.create(url)).build());
        assertThat(response.statusCode()).isEqualTo(200);
        return response.body();
    }

    private static int freePort() {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Path("/payments")
    public static class Payments {
        /** New at each start of the application: dev mode's restart loads the classes anew. */
        static final String BOOT = UUID.randomUUID().toString();

        @Inject
        DataSource dataSource;

        @GET
        @Path("/boot")
        public String boot() {
            return BOOT;
        }

        @POST
        @Idempotent
        @Consumes("application/json")
        public Response pay(@HeaderParam("Idempotency-Key") String key, String payment) {
            Http.recordEffect(dataSource, key);
            return Response.status(201).entity("{\"payment\":\"" + UUID.randomUUID() + "\"}").type("application/json").build();
        }
    }
}
