package dev.idem.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.testing.RawHttp;
import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.extension.ExtendWith;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * A test over real HTTP against the shared {@link TestApp} of one backend; subclasses name it.
 */
@ExtendWith(SharedApps.class)
abstract class AppTest {
    static final String KEY_HEADER = "Idempotency-Key";
    static final String JSON = "application/json";
    /** HTTP/1.1, no h2c upgrade; one for the run (java.net.http on Java 17 cannot be closed). */
    static final HttpClient CLIENT = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(10)).build();

    TestApp app;

    abstract Backend backend();

    /** A fresh value, so each test counts its own effects and uses its own keys. */
    static String fresh(String prefix) {
        return prefix + "-" + UUID.randomUUID();
    }

    static String itemJson(String item) {
        return "{\"item\":\"" + item + "\"}";
    }

    /** A JSON POST to {@code path}, with the key header when {@code key} is not null. */
    HttpRequest.Builder post(String path, String key, String json) {
        HttpRequest.Builder builder = HttpRequest.newBuilder(app.uri(path))
                .timeout(Duration.ofSeconds(90))
                .header("Content-Type", JSON)
                .POST(HttpRequest.BodyPublishers.ofString(json, StandardCharsets.UTF_8));
        if (key != null) {
            builder.header(KEY_HEADER, key);
        }
        return builder;
    }

    static HttpResponse<String> send(HttpRequest request) throws IOException, InterruptedException {
        return CLIENT.send(request, HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
    }

    static boolean replayed(HttpResponse<?> response) {
        return response.headers().firstValue("Idempotent-Replayed").filter("true"::equals).isPresent();
    }

    static JsonNode json(String body) {
        return JsonMapper.shared().readTree(body);
    }

    /**
     * Asserts an RFC 9457 problem of idem's: status, media type, type URN, and that the body carries
     * none of {@code secrets}.
     */
    static JsonNode assertProblem(HttpResponse<String> response, int status, String problem, String... secrets) {
        assertThat(response.statusCode()).as("status of %s", problem).isEqualTo(status);
        assertThat(response.headers().firstValue("Content-Type")).hasValueSatisfying(
                type -> assertThat(type).startsWith("application/problem+json"));
        JsonNode json = json(response.body());
        assertThat(json.get("type").asString()).isEqualTo("urn:idem:problem:" + problem);
        assertThat(json.get("status").asInt()).isEqualTo(status);
        assertThat(json.get("detail").asString()).isNotBlank();
        for (String secret : secrets) {
            assertThat(response.body()).as("a problem never reveals a key or the body").doesNotContain(secret);
        }
        return json;
    }

    /**
     * The whole response to a JSON POST whose key header carries {@code key}'s bytes as they are —
     * java.net.http refuses control characters and turns non-ASCII into {@code ?}.
     */
    String rawPost(String path, byte[] key, String json) throws IOException {
        return RawHttp.post(app.base, path, KEY_HEADER, key, json.getBytes(StandardCharsets.UTF_8));
    }
}
