package dev.idem.quarkus.deployment;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.jakarta.rest.Idempotent;
import dev.idem.testing.RealServices;
import io.quarkus.test.QuarkusDevModeTest;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.core.Response;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.UUID;
import org.jboss.shrinkwrap.api.asset.StringAsset;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code quarkus.idem.store=redis} on the real Redis (no datasource used), across a restart (dev mode's,
 * on a changed configuration): first on the application's Redis ({@code quarkus.redis.hosts},
 * quarkus-redis-client's setting, read as a value), then at {@code quarkus.idem.redis.url}, which wins
 * over it. The key sent before and after is replayed, the resource runs once, and the stopped
 * application's Lettuce connection is closed.
 */
class RedisRestartTest {
    private static final int PORT = freePort();
    private static final String PREFIX = RedisKeys.prefix("restart");
    /** The store's connection before the restart (on quarkus.redis.hosts) and after (at quarkus.idem.redis.url), as CLIENT LIST names them. */
    private static final String HOSTS_CLIENT = "idem-quarkus-hosts-" + ProcessHandle.current().pid();
    private static final String URL_CLIENT = "idem-quarkus-url-" + ProcessHandle.current().pid();

    @RegisterExtension
    static final QuarkusDevModeTest APP = new QuarkusDevModeTest()
            .withApplicationRoot(jar -> jar.addClasses(Payments.class, Http.class)
                    .addAsResource(new StringAsset(String.join("\n",
                            "quarkus.devservices.enabled=false",
                            "quarkus.http.port=" + PORT,
                            "quarkus.redis.hosts=" + RealServices.redisUri() + "?clientName=" + HOSTS_CLIENT,
                            "quarkus.idem.store=redis",
                            "quarkus.idem.redis.key-prefix=" + PREFIX,
                            "quarkus.idem.redis.persistence-check=skip", // the machine's Redis keeps nothing on disk
                            "")), "application.properties"));

    @AfterAll
    static void deleteKeys() {
        RedisKeys.delete(PREFIX);
    }

    @Test
    void theSameKeySentAcrossARestartIsReplayedAndTheStoppedApplicationsClientIsClosed() throws Exception {
        String base = "http://localhost:" + PORT;
        String key = UUID.randomUUID().toString();
        String firstBoot = get(base + "/redis-payments/boot");
        HttpResponse<String> first = Http.post(base, "/redis-payments", key, "{\"amount\":100}");
        assertThat(RedisKeys.connectionsNamed(HOSTS_CLIENT)).as("the store's one connection, on quarkus.redis.hosts").isEqualTo(1);
        assertThat(RedisKeys.keys(PREFIX)).as("the record, in Redis under the configured prefix").isNotEmpty();

        APP.modifyResourceFile("application.properties", properties -> properties
                + "quarkus.idem.redis.url=" + RealServices.redisUri() + "?clientName=" + URL_CLIENT + "\n");
        String secondBoot = get(base + "/redis-payments/boot"); // the first request after the change restarts the application
        HttpResponse<String> retry = Http.post(base, "/redis-payments", key, "{\"amount\":100}");
        HttpResponse<String> otherBody = Http.post(base, "/redis-payments", key, "{\"amount\":999}");

        assertThat(secondBoot).isNotEqualTo(firstBoot);
        assertThat(first.statusCode()).isEqualTo(201);
        assertThat(retry.statusCode()).isEqualTo(201);
        assertThat(retry.body()).as("the first run's answer: the resource did not run again").isEqualTo(first.body());
        assertThat(retry.headers().firstValue("Idempotent-Replayed")).hasValue("true");
        assertThat(otherBody.statusCode()).as("the same key with another body").isEqualTo(422);
        awaitConnections(HOSTS_CLIENT, 0); // the stopped application's store closed its client
        assertThat(RedisKeys.connectionsNamed(URL_CLIENT)).as("the new store's, at quarkus.idem.redis.url").isEqualTo(1);
    }

    /** Waits (up to 30 s) until the server counts {@code expected} connections named {@code name}: a closed one leaves the list. */
    private static void awaitConnections(String name, long expected) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        long seen = RedisKeys.connectionsNamed(name);
        while (seen != expected && System.nanoTime() < deadline) {
            Thread.sleep(100);
            seen = RedisKeys.connectionsNamed(name);
        }
        assertThat(seen).as("connections named %s", name).isEqualTo(expected);
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

    @Path("/redis-payments")
    public static class Payments {
        /** New at each start of the application: dev mode's restart loads the classes anew. */
        static final String BOOT = UUID.randomUUID().toString();

        @GET
        @Path("/boot")
        public String boot() {
            return BOOT;
        }

        @POST
        @Idempotent
        @Consumes("application/json")
        public Response pay(String payment) {
            // A new id at each run: a retry that ran again would answer another one.
            return Response.status(201).entity("{\"payment\":\"" + UUID.randomUUID() + "\"}").type("application/json").build();
        }
    }
}
