package dev.idem.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.jdbc.Sqlite;
import java.io.File;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The starter on the class path of a Spring Boot 3.5 application: Jackson 2 as Boot manages it
 * (databind 2.19 with jackson-annotations 2.19.2) and, of Jackson 3, only idem-servlet's jackson-core.
 * The shared tests read JSON with Jackson 3's databind (which needs newer annotations), so their class
 * path has more than an application's; here {@code OrdersApplication} runs in a child JVM on the test's
 * class path less Jackson 3's databind, with Boot's own jackson-annotations, and the filter still writes
 * its problems, canonicalises bodies and replays.
 */
class Boot3ClassPathTest {
    private static final HttpClient CLIENT = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(10)).build();

    @TempDir
    Path dir;

    @Test
    void withOnlyBootsJackson2TheFilterAnswersProblemsAndReplaysCanonicalBodies() throws Exception {
        String classPath = applicationClassPath();
        assertThat(classPath).doesNotContain("jackson-databind-3.").contains("jackson-core-3.")
                .contains("jackson-databind-2.").doesNotContain("jackson-annotations-2.21");
        Path effects = dir.resolve("effects.log");
        String item = "boot3-" + UUID.randomUUID();
        String key = UUID.randomUUID().toString();
        try (ChildApp app = ChildApp.start(dir, Sqlite.url(dir.resolve("orders.db")), effects, classPath)) {
            HttpResponse<String> missing = send(app.uri("/orders"), null, "{\"item\":\"" + item + "\"}");
            assertThat(missing.statusCode()).isEqualTo(400);
            assertThat(missing.headers().firstValue("Content-Type")).hasValue("application/problem+json");
            assertThat(missing.body()).contains("\"type\":\"urn:idem:problem:key-missing\"", "\"status\":400");

            HttpResponse<String> first = send(app.uri("/orders"), key, "{\"item\":\"" + item + "\",\"note\":\"n\"}");
            // The same JSON, members in another order and with whitespace: the same request.
            HttpResponse<String> retry = send(app.uri("/orders"), key, "{ \"note\" : \"n\", \"item\" : \"" + item + "\" }");
            HttpResponse<String> other = send(app.uri("/orders"), key, "{\"item\":\"" + item + "\",\"note\":\"m\"}");
            HttpResponse<String> malformed = send(app.uri("/orders"), UUID.randomUUID().toString(), "{\"item\":");

            assertThat(first.statusCode()).isEqualTo(201);
            assertThat(first.body()).contains(item);
            assertThat(retry.statusCode()).isEqualTo(201);
            assertThat(retry.headers().firstValue("Idempotent-Replayed")).hasValue("true");
            assertThat(retry.body()).isEqualTo(first.body());
            assertThat(other.statusCode()).isEqualTo(422);
            assertThat(other.body()).contains("urn:idem:problem:key-mismatch");
            assertThat(malformed.statusCode()).isEqualTo(400);
            assertThat(malformed.body()).contains("urn:idem:problem:malformed-json");
            assertThat(ProcessRestartTest.effectsOf(effects, item)).as("the handler ran once").isEqualTo(1);
        }
    }

    /** The test's class path less Jackson 3's databind, with Boot 3.5.7's jackson-annotations for the test's newer one. */
    private static String applicationClassPath() {
        Path bootAnnotations = Path.of(System.getProperty("idem.boot.jackson-annotations"));
        assertThat(bootAnnotations).as("Boot's jackson-annotations, copied by the build").isRegularFile();
        List<String> entries = Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
                .filter(entry -> !Path.of(entry).getFileName().toString().startsWith("jackson-databind-3."))
                .map(entry -> Path.of(entry).getFileName().toString().startsWith("jackson-annotations-") ? bootAnnotations.toString() : entry)
                .collect(Collectors.toList());
        return String.join(File.pathSeparator, entries);
    }

    private static HttpResponse<String> send(URI uri, String key, String json) throws IOException, InterruptedException {
        HttpRequest.Builder request = HttpRequest.newBuilder(uri)
                .timeout(Duration.ofSeconds(60))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(json, StandardCharsets.UTF_8));
        if (key != null) {
            request.header("Idempotency-Key", key);
        }
        return CLIENT.send(request.build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
    }
}
