package dev.idem.servlet;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

/** A key is scoped by principal: the same key from two principals is two records, never a shared replay. */
@ParameterizedClass
@EnumSource(Backend.class)
class PrincipalScopeHttpTest extends FilterTestSupport {
    private static final String ALICE_KEY = "ak_live_alice_5f0c2e";
    private static final String BOB_KEY = "ak_live_bob_91d7aa";

    PrincipalScopeHttpTest(Backend backend) {
        super(backend);
    }

    /** Answers with who asked, as the handler saw it, so a cross-principal replay would show. */
    private static TestServer.Handler whoAsked(AtomicInteger runs, String header) {
        return (request, response) -> {
            int run = runs.incrementAndGet();
            response.setStatus(201);
            response.setContentType("text/plain;charset=UTF-8");
            response.getWriter().write("run " + run + " for " + request.getHeader(header));
        };
    }

    @Test
    void theSameKeyFromTwoApiKeysRunsTwiceAndNeitherSeesTheOthersBody() throws Exception {
        AtomicInteger runs = new AtomicInteger();
        IdempotencyFilter filter = IdempotencyFilter.builder(idem().build())
                .scopeResolver(ScopeResolver.credentialHeader("X-Api-Key"))
                .build();
        TestServer server = serve(filter, Map.of(PAYMENTS, whoAsked(runs, "X-Api-Key")));

        HttpResponse<String> alice = send(post(server, PAYMENTS, "shared-key", "{}").header("X-Api-Key", ALICE_KEY).build());
        HttpResponse<String> bob = send(post(server, PAYMENTS, "shared-key", "{}").header("X-Api-Key", BOB_KEY).build());
        HttpResponse<String> aliceAgain = send(post(server, PAYMENTS, "shared-key", "{}").header("X-Api-Key", ALICE_KEY).build());
        HttpResponse<String> bobAgain = send(post(server, PAYMENTS, "shared-key", "{}").header("X-Api-Key", BOB_KEY).build());

        assertThat(runs).as("two independent executions").hasValue(2);
        assertThat(alice.body()).isEqualTo("run 1 for " + ALICE_KEY);
        assertThat(bob.body()).isEqualTo("run 2 for " + BOB_KEY);
        assertThat(replayed(bob)).isFalse();
        assertThat(replayed(aliceAgain)).isTrue();
        assertThat(aliceAgain.body()).isEqualTo(alice.body()).doesNotContain(BOB_KEY);
        assertThat(replayed(bobAgain)).isTrue();
        assertThat(bobAgain.body()).isEqualTo(bob.body()).doesNotContain(ALICE_KEY);

        assertThat(storedScopes()).hasSize(2).allSatisfy(scope -> assertThat(scope)
                .as("the credential is stored only as a SHA-256 digest")
                .startsWith("credential:sha256:").doesNotContain(ALICE_KEY).doesNotContain(BOB_KEY).endsWith(" POST /payments"));
    }

    @Test
    void theSameKeyFromTwoAuthenticatedUsersIsTwoRecordsByDefault() throws Exception {
        AtomicInteger runs = new AtomicInteger();
        TestServer server = serve(IdempotencyFilter.builder(idem().build()).build(),
                Map.of(PAYMENTS, whoAsked(runs, TestServer.TEST_USER_HEADER)));

        HttpResponse<String> alice = send(post(server, PAYMENTS, "user-key", "{}").header(TestServer.TEST_USER_HEADER, "alice").build());
        HttpResponse<String> bob = send(post(server, PAYMENTS, "user-key", "{}").header(TestServer.TEST_USER_HEADER, "bob").build());
        HttpResponse<String> anonymous = send(post(server, PAYMENTS, "user-key", "{}").build());
        HttpResponse<String> bobAgain = send(post(server, PAYMENTS, "user-key", "{}").header(TestServer.TEST_USER_HEADER, "bob").build());

        assertThat(runs).hasValue(3);
        assertThat(alice.body()).isEqualTo("run 1 for alice");
        assertThat(bob.body()).isEqualTo("run 2 for bob");
        assertThat(anonymous.body()).isEqualTo("run 3 for null");
        assertThat(replayed(bobAgain)).isTrue();
        assertThat(bobAgain.body()).isEqualTo("run 2 for bob");
        assertThat(record("user:alice", PAYMENTS_SCOPE_OPERATION, "user-key")).isPresent();
        assertThat(record("user:bob", PAYMENTS_SCOPE_OPERATION, "user-key")).isPresent();
        assertThat(record(ScopeResolver.ANONYMOUS, PAYMENTS_SCOPE_OPERATION, "user-key").orElseThrow()
                .response().orElseThrow().body()).isEqualTo("run 3 for null".getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void aRouteTemplateScopesTheKeyWhileTheFingerprintKeepsTheActualPath() throws Exception {
        AtomicInteger runs = new AtomicInteger();
        IdempotencyFilter filter = IdempotencyFilter.builder(idem().build())
                .scopeResolver(ScopeResolver.userPrincipal(request -> "/orders/{id}"))
                .build();
        TestServer server = serve(filter, Map.of("/orders/*", created(runs)));

        HttpResponse<String> first = send(post(server, "/orders/1", "template-key", "{}").build());
        HttpResponse<String> again = send(post(server, "/orders/1", "template-key", "{}").build());
        HttpResponse<String> otherOrder = send(post(server, "/orders/2", "template-key", "{}").build());

        assertThat(first.statusCode()).isEqualTo(201);
        assertThat(replayed(again)).isTrue();
        assertProblem(otherOrder, 422, "key-mismatch", "template-key");
        assertThat(runs).hasValue(1);
        assertThat(storedScopes()).containsExactly(ScopeResolver.ANONYMOUS + " POST /orders/{id}");
    }
}
