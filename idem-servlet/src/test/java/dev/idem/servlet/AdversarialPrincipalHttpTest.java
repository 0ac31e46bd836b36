package dev.idem.servlet;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.servlet.internal.RequestNames;
import jakarta.servlet.http.HttpServletRequest;
import java.net.URLEncoder;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.security.Principal;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Principals named to collide: with one key, each still gets its own responses, never another's —
 * a user named {@code anonymous}, one named after another's credential digest or another name's
 * digest, names with the separator, {@code %}, empty-ish and Unicode names.
 */
@ParameterizedClass
@EnumSource(Backend.class)
class AdversarialPrincipalHttpTest extends FilterTestSupport {
    private static final String KEY = "shared-key";
    private static final String API_KEY = "ak_live_victim_3c9e41";
    private static final String LONG_NAME = "l".repeat(200);

    AdversarialPrincipalHttpTest(Backend backend) {
        super(backend);
    }

    /** Who a request is, as the test client sends it: a user (URL-encoded), an API key, or nobody. */
    private record Caller(String label, String user, String apiKey) {
        static Caller user(String name) {
            return new Caller("user " + name, name, null);
        }

        HttpRequest request(TestServer server) {
            HttpRequest.Builder builder = post(server, PAYMENTS, KEY, "{}");
            if (user != null) {
                builder.header(TestServer.TEST_USER_ENCODED_HEADER, URLEncoder.encode(user, StandardCharsets.UTF_8));
            }
            if (apiKey != null) {
                builder.header("X-Api-Key", apiKey);
            }
            return builder.build();
        }
    }

    /** Answers with a run number and who asked, so a cross-principal replay would show. */
    private static TestServer.Handler whoAsked(AtomicInteger runs) {
        return (request, response) -> {
            int run = runs.incrementAndGet();
            Principal principal = request.getUserPrincipal();
            response.setStatus(201);
            response.setContentType("text/plain;charset=UTF-8");
            response.getWriter().write("run " + run + " for " + (principal == null ? "key " + request.getHeader("X-Api-Key") : "user " + principal.getName()));
        };
    }

    /** Users by principal, API clients by credential, as an application with both would resolve them. */
    private static ScopeResolver usersOrApiKeys() {
        ScopeResolver users = ScopeResolver.userPrincipal();
        ScopeResolver apiKeys = ScopeResolver.credentialHeader("X-Api-Key");
        return (HttpServletRequest request) -> request.getUserPrincipal() != null ? users.resolve(request) : apiKeys.resolve(request);
    }

    @Test
    void everyPrincipalGetsOnlyItsOwnResponsesWhateverItsName() throws Exception {
        List<Caller> callers = List.of(
                new Caller("nobody", null, null),
                Caller.user("anonymous"),
                new Caller("api key", null, API_KEY),
                Caller.user("sha256:" + RequestNames.sha256Hex(API_KEY)),
                Caller.user("credential:sha256:" + RequestNames.sha256Hex(API_KEY)),
                Caller.user("Zoë"),
                Caller.user("sha256:" + RequestNames.sha256Hex("Zoë")),
                Caller.user("Zoe\u0308"), // the same letters, decomposed: another name
                Caller.user("user:alice"),
                Caller.user("alice"),
                Caller.user("alice POST"),
                Caller.user("alice%20POST"),
                Caller.user("alice%2520POST"),
                Caller.user("%"),
                Caller.user("%25"),
                Caller.user(""),
                Caller.user(" "),
                Caller.user("  "),
                Caller.user(LONG_NAME),
                Caller.user("user-sha256:" + RequestNames.sha256Hex(LONG_NAME)),
                Caller.user("用户 😀"));
        AtomicInteger runs = new AtomicInteger();
        TestServer server = serve(IdempotencyFilter.builder(idem().build()).scopeResolver(usersOrApiKeys()).build(),
                Map.of(PAYMENTS, whoAsked(runs)));

        Map<Caller, String> firstBodies = new LinkedHashMap<>();
        for (Caller caller : callers) {
            HttpResponse<String> first = send(caller.request(server));
            assertThat(replayed(first)).as("%s ran its own request, not a replay of another's", caller.label()).isFalse();
            assertThat(first.statusCode()).isEqualTo(201);
            firstBodies.put(caller, first.body());
        }
        for (Caller caller : callers) {
            HttpResponse<String> retry = send(caller.request(server));
            assertThat(replayed(retry)).as("%s's retry", caller.label()).isTrue();
            assertThat(retry.body()).as("%s's retry replays its own answer", caller.label()).isEqualTo(firstBodies.get(caller));
        }

        assertThat(runs).as("one run per principal").hasValue(callers.size());
        List<String> scopes = storedScopes();
        assertThat(scopes).doesNotHaveDuplicates().hasSize(callers.size());
        assertThat(new ArrayList<>(firstBodies.values())).doesNotHaveDuplicates();
        assertThat(scopes).as("scopes name their principal's kind").allSatisfy(scope -> assertThat(scope).matches(
                "(anonymous|user:\\S*|user-sha256:[0-9a-f]{64}|credential:sha256:[0-9a-f]{64}) POST /payments"));
        assertThat(scopes).contains("anonymous POST /payments", "user:anonymous POST /payments", "user:alice POST /payments",
                "user: POST /payments", "user:%20 POST /payments", "user:%25 POST /payments", "user:Zo%C3%AB POST /payments",
                "credential:sha256:" + RequestNames.sha256Hex(API_KEY) + " POST /payments",
                "user-sha256:" + RequestNames.sha256Hex(LONG_NAME) + " POST /payments");
    }
}
