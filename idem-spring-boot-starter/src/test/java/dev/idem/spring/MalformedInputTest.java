package dev.idem.spring;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Malformed keys and bodies: always a 4xx, never a 5xx; the handler never runs and nothing is stored.
 */
abstract class MalformedInputTest extends AppTest {

    @Test
    void emptyAndOverlongAndBadlyQuotedKeysAre400() throws Exception {
        String item = fresh("bad-key");
        int rowsBefore = app.rows();
        Map<String, String> keys = new LinkedHashMap<>();
        keys.put("empty", "");
        keys.put("256 characters", "k".repeat(256));
        keys.put("a space", "two words");
        keys.put("a tab", "with\ttab");
        keys.put("an unterminated quote", "\"unterminated");
        keys.put("empty quotes", "\"\"");

        for (Map.Entry<String, String> key : keys.entrySet()) {
            HttpResponse<String> response = send(post("/orders", key.getValue(), itemJson(item)).build());
            assertProblem(response, 400, "key-invalid", item).get("detail");
            if (key.getValue().length() > 3) {
                assertThat(response.body()).as("%s: the key is not echoed", key.getKey()).doesNotContain(key.getValue());
            }
        }
        assertThat(app.effects().count(item)).as("the handler never ran").isZero();
        assertThat(app.rows()).as("nothing was stored").isEqualTo(rowsBefore);
    }

    @Test
    void keyOf255CharactersIsTheLongestAccepted() throws Exception {
        String item = fresh("long-key");
        String key = fresh("k").substring(0, 38) + "k".repeat(255 - 38);

        HttpResponse<String> response = send(post("/orders", key, itemJson(item)).build());

        assertThat(key).hasSize(255);
        assertThat(response.statusCode()).isEqualTo(201);
        assertThat(app.effects().count(item)).isEqualTo(1);
    }

    /** Bytes java.net.http would refuse or rewrite, sent over a raw socket as a broken client sends them. */
    @Test
    void controlCharactersAndNonAsciiInTheKeyAre4xx() throws Exception {
        String item = fresh("raw-key");
        int rowsBefore = app.rows();
        Map<String, byte[]> nonAscii = Map.of(
                "a Latin-1 byte", "caf\u00e9-key".getBytes(StandardCharsets.ISO_8859_1),
                "UTF-8 bytes", "caf\u00e9-key".getBytes(StandardCharsets.UTF_8));
        Map<String, byte[]> control = Map.of(
                "a BEL", "bell\u0007key".getBytes(StandardCharsets.ISO_8859_1),
                "a DEL", "del\u007fkey".getBytes(StandardCharsets.ISO_8859_1),
                "a NUL", "nul\u0000key".getBytes(StandardCharsets.ISO_8859_1));

        for (Map.Entry<String, byte[]> key : nonAscii.entrySet()) {
            String response = rawPost("/orders", key.getValue(), itemJson(item));
            assertThat(response).as("non-ASCII: %s", key.getKey()).startsWith("HTTP/1.1 400 ")
                    .contains("application/problem+json", "urn:idem:problem:key-invalid")
                    .doesNotContain("caf");
        }
        for (Map.Entry<String, byte[]> key : control.entrySet()) {
            // Tomcat may refuse some of these header bytes itself, before any filter: still a 4xx.
            assertThat(rawPost("/orders", key.getValue(), itemJson(item))).as("control character: %s", key.getKey())
                    .matches("(?s)HTTP/1\\.1 4\\d\\d .*");
        }
        assertThat(app.effects().count(item)).as("the handler never ran").isZero();
        assertThat(app.rows()).as("nothing was stored").isEqualTo(rowsBefore);
    }

    @Test
    void keyHeaderSentTwiceIs400() throws Exception {
        String item = fresh("twice");
        int rowsBefore = app.rows();

        HttpResponse<String> response = send(post("/orders", "first-value", itemJson(item))
                .header(KEY_HEADER, "second-value").build());

        assertProblem(response, 400, "key-invalid", "first-value", "second-value");
        assertThat(app.effects().count(item)).isZero();
        assertThat(app.rows()).isEqualTo(rowsBefore);
    }

    @Test
    void malformedJsonIs400AndNothingRunsOrIsStored() throws Exception {
        String item = fresh("broken-json");
        int rowsBefore = app.rows();
        String[] bodies = {
                "{\"item\":\"" + item + "\"",              // unterminated object
                "{\"item\":\"" + item + "\",}",            // trailing comma
                "{\"item\":\"" + item + "\"} trailing",    // content after the value
                "{item:\"" + item + "\"}"};                // unquoted name

        for (String body : bodies) {
            HttpResponse<String> response = send(post("/orders", fresh("json-key"), body).build());
            assertProblem(response, 400, "malformed-json", item, body);
        }
        assertThat(app.effects().count(item)).as("the handler never ran").isZero();
        assertThat(app.rows()).as("nothing was stored").isEqualTo(rowsBefore);
    }

    @Test
    void noMalformedRequestIsEverAnswered5xx() throws Exception {
        String item = fresh("no-5xx");
        String[] requests = {
                rawPost("/orders", new byte[0], itemJson(item)),
                rawPost("/orders", "\"open-quote".getBytes(StandardCharsets.US_ASCII), itemJson(item)),
                rawPost("/orders", "ok-key".getBytes(StandardCharsets.US_ASCII), "not json at all"),
                rawPost("/orders", "ok-key-2".getBytes(StandardCharsets.US_ASCII), "")};

        for (String response : requests) {
            assertThat(response).matches("(?s)HTTP/1\\.1 4\\d\\d .*");
        }
        assertThat(app.effects().count(item)).isZero();
    }
}
