package dev.idem.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.io.IOException;
import java.net.http.HttpRequest;
import java.net.http.HttpRequest.BodyPublishers;
import java.net.http.HttpResponse.BodyHandlers;
import java.util.UUID;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/** Where the key comes from, and what a supplied key must look like. */
class KeyTest {
    private IdempotentTestServer server;
    private FakeTime time;
    private IdempotentHttpClient client;

    @BeforeEach
    void start() throws IOException {
        server = IdempotentTestServer.start();
        time = new FakeTime();
        client = IdempotentHttpClient.builder(Http.CLIENT).sleeper(time).clock(time).build();
    }

    @AfterEach
    void stop() {
        server.close();
    }

    @Test
    void a_generated_key_is_a_random_uuid_v4() throws Exception {
        IdempotentResponse<String> response = client.send(Http.post(server.uri("/payments")), BodyHandlers.ofString());

        String key = response.key().orElseThrow();
        UUID uuid = UUID.fromString(key);
        assertThat(uuid.version()).isEqualTo(4);
        assertThat(uuid.variant()).isEqualTo(2); // IETF variant
        assertThat(uuid.toString()).isEqualTo(key); // canonical lower-case form, sent as is
        assertThat(server.keys()).containsExactly(key);
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Mode.class)
    void a_caller_supplied_key_is_used_verbatim_on_every_attempt(Mode mode) throws Exception {
        server.thenRespond(503).thenRespond(502);
        String key = "order-42/pay:Attempt#1";

        IdempotentResponse<String> response = mode.send(client, Http.post(server.uri("/payments")),
                BodyHandlers.ofString(), key);

        assertThat(response.key()).contains(key);
        assertThat(server.keys()).containsExactly(key, key, key);
        assertThat(server.executions(key)).isEqualTo(1);
    }

    @Test
    void an_sf_string_key_is_sent_verbatim_with_its_quotes() throws Exception {
        client.send(Http.post(server.uri("/payments")), BodyHandlers.ofString(), "\"abc\"");

        assertThat(server.keys()).containsExactly("\"abc\"");
    }

    @Test
    void the_longest_allowed_key_is_accepted() throws Exception {
        String key = "k".repeat(255);

        client.send(Http.post(server.uri("/payments")), BodyHandlers.ofString(), key);

        assertThat(server.keys()).containsExactly(key);
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(Mode.class)
    void a_key_already_in_the_request_headers_is_kept_on_every_attempt(Mode mode) throws Exception {
        server.thenRespond(503);
        HttpRequest request = HttpRequest.newBuilder(server.uri("/payments"))
                .header("Idempotency-Key", "from-header-1")
                .POST(BodyPublishers.ofString("{}")).build();

        IdempotentResponse<String> response = mode.send(client, request, BodyHandlers.ofString());

        assertThat(response.key()).contains("from-header-1");
        assertThat(server.keys()).containsExactly("from-header-1", "from-header-1");
    }

    @Test
    void the_header_and_the_argument_may_hold_the_same_key() throws Exception {
        HttpRequest request = HttpRequest.newBuilder(server.uri("/payments"))
                .header("idempotency-key", "k-1") // header names are case-insensitive
                .POST(BodyPublishers.ofString("{}")).build();

        IdempotentResponse<String> response = client.send(request, BodyHandlers.ofString(), "k-1");

        assertThat(server.keys()).containsExactly("k-1");
        assertThat(server.seen()).hasSize(1);
        assertThat(response.key()).contains("k-1");
    }

    @Test
    void the_header_and_the_argument_must_not_disagree() {
        HttpRequest request = HttpRequest.newBuilder(server.uri("/payments"))
                .header("Idempotency-Key", "header-secret-1")
                .POST(BodyPublishers.ofString("{}")).build();

        assertThatThrownBy(() -> client.send(request, BodyHandlers.ofString(), "argument-secret-2"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("different keys")
                .message().doesNotContain("header-secret-1").doesNotContain("argument-secret-2");
        assertThat(server.requests()).isZero();
    }

    @Test
    void two_key_headers_on_one_request_are_refused() {
        HttpRequest request = HttpRequest.newBuilder(server.uri("/payments"))
                .header("Idempotency-Key", "one-secret")
                .header("Idempotency-Key", "two-secret")
                .POST(BodyPublishers.ofString("{}")).build();

        assertThatThrownBy(() -> client.send(request, BodyHandlers.ofString()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("2 Idempotency-Key headers")
                .message().doesNotContain("one-secret").doesNotContain("two-secret");
        assertThat(server.requests()).isZero();
    }

    static Stream<Arguments> invalidKeys() {
        return Stream.of(
                Arguments.of("empty", "", "empty"),
                Arguments.of("256 characters", "s".repeat(256), "256 characters"),
                Arguments.of("a space", "my secret key", "a space at position 2"),
                Arguments.of("a tab", "tab\tsecret", "a control character at position 3"),
                Arguments.of("non-ASCII", "clé-secrète", "a non-ASCII character at position 2"),
                Arguments.of("DEL", "del\u007Fsecret", "a control character at position 3"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("invalidKeys")
    void an_invalid_supplied_key_is_refused_without_echoing_it(String what, String key, String rule) {
        IllegalArgumentException sync = catchThrowableOfType(IllegalArgumentException.class,
                () -> client.send(Http.post(server.uri("/payments")), BodyHandlers.ofString(), key));
        IllegalArgumentException async = catchThrowableOfType(IllegalArgumentException.class,
                () -> client.sendAsync(Http.post(server.uri("/payments")), BodyHandlers.ofString(), key));

        for (IllegalArgumentException e : new IllegalArgumentException[] {sync, async}) {
            assertThat(e).hasMessageStartingWith("idempotency key is invalid: ").hasMessageContaining(rule);
            if (!key.isEmpty()) {
                assertThat(e.getMessage()).doesNotContain(key);
            }
            assertThat(e.getMessage()).doesNotContain("secret");
        }
        assertThat(server.requests()).isZero();
    }

    @Test
    void an_invalid_key_in_the_request_headers_is_refused_without_echoing_it() {
        HttpRequest request = HttpRequest.newBuilder(server.uri("/payments"))
                .header("Idempotency-Key", "has a secret space")
                .POST(BodyPublishers.ofString("{}")).build();

        assertThatThrownBy(() -> client.send(request, BodyHandlers.ofString()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("a space at position 3")
                .message().doesNotContain("secret");
        assertThat(server.requests()).isZero();
    }

    @Test
    void a_null_key_argument_is_refused() {
        assertThatThrownBy(() -> client.send(Http.post(server.uri("/payments")), BodyHandlers.ofString(), null))
                .isInstanceOf(NullPointerException.class)
                .hasMessage("key is null");
    }

    @Test
    void the_key_is_not_shown_by_the_responses_toString() throws Exception {
        IdempotentResponse<String> response = client.send(Http.post(server.uri("/payments")), BodyHandlers.ofString(),
                "visible-only-to-code");

        assertThat(response.toString())
                .contains("status=201", "attempts=1", "replayed=false", "key=present")
                .doesNotContain("visible-only-to-code")
                .doesNotContain("payment-1");
    }
}
