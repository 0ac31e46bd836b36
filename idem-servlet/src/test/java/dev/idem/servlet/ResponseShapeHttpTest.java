package dev.idem.servlet;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.StoredResponse;
import jakarta.servlet.Filter;
import jakarta.servlet.http.HttpServletResponse;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;
import tools.jackson.databind.json.JsonMapper;

/**
 * Once the handler ran, nothing about its answer's shape releases the key: headers with control
 * characters in names or values, non-ASCII values, a body over the engine's cap, an odd encoding, many
 * headers. Each test sends three POSTs with one key: the handler runs once, and every retry replays
 * what the first caller received — which is also what the same servlet answers without idem.
 */
@ParameterizedClass
@EnumSource(Backend.class)
class ResponseShapeHttpTest extends FilterTestSupport {
    /** Headers that legitimately differ between a first answer and its replay. */
    private static final Set<String> PER_SENDING = Set.of("date", "idempotent-replayed", "set-cookie");

    /** The key of the last {@link #threePosts}. */
    private String lastKey;

    ResponseShapeHttpTest(Backend backend) {
        super(backend);
    }

    @FunctionalInterface
    interface Shape {
        void apply(HttpServletResponse response, String note) throws Exception;
    }

    /** Counts its runs and answers 201, shaping the response with the request's {@code note} (echoed input). */
    private static TestServer.Handler echoing(AtomicInteger runs, Shape shape) {
        return (request, response) -> {
            int run = runs.incrementAndGet();
            String note = JsonMapper.shared().readTree(request.getInputStream().readAllBytes()).get("note").asString();
            response.setStatus(201);
            response.setContentType(JSON);
            shape.apply(response, note);
            try {
                response.getOutputStream().write(("{\"run\":" + run + "}").getBytes(StandardCharsets.UTF_8));
            } catch (IllegalStateException writerInUse) {
                response.getWriter().write("{\"run\":" + run + "}");
            }
        };
    }

    private static String json(String note) {
        return "{\"note\":" + quote(note) + "}";
    }

    /** The same handler behind a filter that does nothing: what the container sends without idem. */
    private HttpResponse<String> withoutIdem(Shape shape, String note) throws Exception {
        Filter passThrough = (request, response, chain) -> chain.doFilter(request, response);
        TestServer plain = serve(passThrough, Map.of(PAYMENTS, echoing(new AtomicInteger(), shape)));
        return send(post(plain, PAYMENTS, null, json(note)).build());
    }

    /** Three POSTs with one key; asserts one run and that both retries replay the first answer. */
    private List<HttpResponse<String>> threePosts(Shape shape, String note, AtomicInteger runs, IdempotencyFilter filter) throws Exception {
        TestServer server = serve(filter, Map.of(PAYMENTS, echoing(runs, shape)));
        String key = "shape-" + runs.hashCode();
        lastKey = key;
        HttpResponse<String> first = send(post(server, PAYMENTS, key, json(note)).build());
        HttpResponse<String> second = send(post(server, PAYMENTS, key, json(note)).build());
        HttpResponse<String> third = send(post(server, PAYMENTS, key, json(note)).build());
        assertThat(runs).as("one effect for three POSTs with one key").hasValue(1);
        assertThat(first.statusCode()).isEqualTo(201);
        assertThat(replayed(first)).isFalse();
        for (HttpResponse<String> retry : List.of(second, third)) {
            assertThat(replayed(retry)).as("a retry is a replay").isTrue();
            assertThat(retry.statusCode()).isEqualTo(first.statusCode());
        }
        return List.of(first, second, third);
    }

    private List<HttpResponse<String>> threePosts(Shape shape, String note, AtomicInteger runs) throws Exception {
        return threePosts(shape, note, runs, IdempotencyFilter.builder(idem().build()).build());
    }

    /** The headers stored for the last {@link #threePosts}. */
    private Map<String, List<String>> storedHeaders() {
        return paymentRecord(lastKey).orElseThrow().response().orElseThrow().headers();
    }

    /** The headers of an answer, by lower-case name, without those that differ per sending. */
    private static Map<String, List<String>> headers(HttpResponse<?> response) {
        Map<String, List<String>> headers = new TreeMap<>();
        response.headers().map().forEach((name, values) -> {
            if (!PER_SENDING.contains(name.toLowerCase())) {
                headers.put(name.toLowerCase(), values);
            }
        });
        return headers;
    }

    private static void assertReplaysEqualFirst(List<HttpResponse<String>> answers) {
        HttpResponse<String> first = answers.get(0);
        for (HttpResponse<String> retry : answers.subList(1, answers.size())) {
            assertThat(headers(retry)).as("replayed headers").isEqualTo(headers(first));
            assertThat(retry.body()).as("replayed body").isEqualTo(first.body());
        }
    }

    @Test
    void aControlCharacterInAHeaderValueIsStoredAsTheContainerSendsIt() throws Exception {
        Shape shape = (response, note) -> response.setHeader("X-Note", note);
        String note = "line one\nline two\r\nX-Injected: yes\u0001\u0000end\ttab";
        AtomicInteger runs = new AtomicInteger();

        List<HttpResponse<String>> answers = threePosts(shape, note, runs);
        HttpResponse<String> plain = withoutIdem(shape, note);

        assertReplaysEqualFirst(answers);
        HttpResponse<String> first = answers.get(0);
        assertThat(first.headers().firstValue("X-Note")).isEqualTo(plain.headers().firstValue("X-Note"))
                .hasValue("line one line two  X-Injected: yes  end tab"); // java.net.http reads the tab as a space
        assertThat(first.headers().firstValue("X-Injected")).isEmpty();
        assertThat(storedHeaders().get("X-Note")).containsExactly("line one line two  X-Injected: yes  end\ttab");
        assertThat(answers.get(2).headers().firstValue("X-Injected")).isEmpty();
    }

    @Test
    void aControlCharacterInAHeaderNameIsStoredAsTheContainerSendsIt() throws Exception {
        Shape shape = (response, note) -> response.setHeader("X-" + note, "v");
        String note = "Tag\nInjected:1";
        AtomicInteger runs = new AtomicInteger();

        List<HttpResponse<String>> answers = threePosts(shape, note, runs);
        HttpResponse<String> plain = withoutIdem(shape, note);

        assertReplaysEqualFirst(answers);
        assertThat(storedHeaders()).containsEntry("X-Tag.Injected.1", List.of("v"));
        assertThat(answers.get(0).headers().firstValue("X-Tag.Injected.1"))
                .isEqualTo(plain.headers().firstValue("X-Tag.Injected.1")).hasValue("v");
    }

    @Test
    void aHeaderNameThatIsNoHttpTokenIsNotARerun() throws Exception {
        // Space, a separator and a non-ASCII letter: the container would send an invalid field line.
        Shape shape = (response, note) -> {
            response.setHeader("X-" + note, "v");
            response.setHeader("", "no name");
        };
        AtomicInteger runs = new AtomicInteger();

        List<HttpResponse<String>> answers = threePosts(shape, "Ünïcode name(1)", runs);

        assertReplaysEqualFirst(answers);
        assertThat(answers.get(0).headers().firstValue("X-.n.code.name.1.")).hasValue("v");
        assertThat(storedHeaders()).containsEntry("X-.n.code.name.1.", List.of("v")).doesNotContainKey("");
    }

    @Test
    void aNonAsciiHeaderValueIsStoredAsTheContainerSendsIt() throws Exception {
        Shape shape = (response, note) -> {
            response.setHeader("X-Note", note);
            response.addHeader("X-Note", "\uD83D"); // a lone surrogate, as a truncated echo makes
        };
        String note = "Zürich – 5 € 😀";
        AtomicInteger runs = new AtomicInteger();

        List<HttpResponse<String>> answers = threePosts(shape, note, runs);
        HttpResponse<String> plain = withoutIdem(shape, note);

        assertReplaysEqualFirst(answers);
        assertThat(answers.get(0).headers().allValues("X-Note")).isEqualTo(plain.headers().allValues("X-Note"))
                .containsExactly("Zürich   5", ""); // java.net.http trims trailing spaces
        assertThat(storedHeaders().get("X-Note")).containsExactly("Zürich   5     ", " ");
    }

    @Test
    void aBodyOverTheEnginesCapIsStoredWithoutItInsteadOfRunningAgain() throws Exception {
        // The filter's cap (1 MiB by default) is over the engine's: the engine would refuse the
        // response after the effect and release the key.
        String large = "z".repeat(8 * 1024);
        Shape shape = (response, note) -> {
            response.setContentType("text/plain;charset=UTF-8");
            response.getOutputStream().write(large.getBytes(StandardCharsets.UTF_8));
            response.flushBuffer();
        };
        AtomicInteger runs = new AtomicInteger();
        IdempotencyFilter filter = IdempotencyFilter.builder(idem().maxResponseBytes(1024).build()).build();

        List<HttpResponse<String>> answers = threePosts(shape, "big", runs, filter);

        HttpResponse<String> first = answers.get(0);
        assertThat(first.body()).as("the caller that ran it gets the whole body").startsWith(large);
        for (HttpResponse<String> retry : answers.subList(1, 3)) {
            assertThat(retry.body()).isEmpty();
            assertThat(retry.headers().firstValue("Idempotent-Body-Omitted")).hasValue("true");
            assertThat(retry.headers().firstValue("Content-Type")).isEqualTo(first.headers().firstValue("Content-Type"));
        }
        StoredResponse stored = paymentRecord(lastKey).orElseThrow().response().orElseThrow();
        assertThat(stored.bodyLength()).isZero();
    }

    @Test
    void anEncodingTheContainerDoesNotKnowIsNotARerun() throws Exception {
        Shape shape = (response, note) -> {
            response.setContentType("text/plain;\ncharset=" + note);
            response.getWriter().write("héllo");
        };
        AtomicInteger runs = new AtomicInteger();

        List<HttpResponse<String>> answers = threePosts(shape, "no-such-charset\u0001", runs);

        assertReplaysEqualFirst(answers);
    }

    @Test
    void manyHeadersAreNotARerunAndEveryRetryGetsWhatTheFirstCallerGot() throws Exception {
        // 2000 headers are over Jetty's response header buffer (8 KiB): the container itself answers 500,
        // with idem or without. The effect happened once; retries get what the first caller got.
        Shape shape = (response, note) -> {
            for (int i = 0; i < 2000; i++) {
                response.addHeader("X-Item-" + i, note + i);
            }
        };
        AtomicInteger runs = new AtomicInteger();
        TestServer server = serve(IdempotencyFilter.builder(idem().build()).build(), Map.of(PAYMENTS, echoing(runs, shape)));

        HttpResponse<String> first = send(post(server, PAYMENTS, "many-headers", json("item")).build());
        HttpResponse<String> second = send(post(server, PAYMENTS, "many-headers", json("item")).build());
        HttpResponse<String> third = send(post(server, PAYMENTS, "many-headers", json("item")).build());
        HttpResponse<String> plain = withoutIdem(shape, "item");

        assertThat(runs).as("one effect for three POSTs with one key").hasValue(1);
        assertThat(first.statusCode()).isEqualTo(plain.statusCode());
        assertReplaysEqualFirst(List.of(first, second, third));
        assertThat(List.of(second.statusCode(), third.statusCode())).containsOnly(first.statusCode());
        assertThat(paymentRecord("many-headers").orElseThrow().response().orElseThrow().headers())
                .as("stored in full: the store takes them, the container decides what it can send")
                .containsEntry("X-Item-1999", List.of("item1999"));
    }

    @Test
    void hundredsOfHeadersAreStoredAndReplayed() throws Exception {
        Shape shape = (response, note) -> {
            for (int i = 0; i < 300; i++) {
                response.addHeader("X-Item-" + i, note + i);
            }
        };
        AtomicInteger runs = new AtomicInteger();

        List<HttpResponse<String>> answers = threePosts(shape, "item", runs);

        assertReplaysEqualFirst(answers);
        assertThat(answers.get(2).headers().firstValue("X-Item-299")).hasValue("item299");
    }
}
