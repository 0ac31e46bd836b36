package dev.idem.servlet;

import static org.assertj.core.api.Assertions.assertThat;

import jakarta.servlet.Filter;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Filters in front of idem's (CORS, request ids) set headers for each request, replays included: a
 * replay carries the handler's headers and this request's outer ones, never the first request's.
 */
@ParameterizedClass
@EnumSource(Backend.class)
class OuterFilterHeadersHttpTest extends FilterTestSupport {
    private static final String SHOP_A = "https://shop-a.example";
    private static final String SHOP_B = "https://shop-b.example";

    private final AtomicInteger requestIds = new AtomicInteger();

    OuterFilterHeadersHttpTest(Backend backend) {
        super(backend);
    }

    /** A CORS filter: allows the request's origin, and says the answer varies by it. */
    private static Filter cors() {
        return (request, response, chain) -> {
            String origin = ((HttpServletRequest) request).getHeader("Origin");
            if (origin != null) {
                HttpServletResponse http = (HttpServletResponse) response;
                http.setHeader("Access-Control-Allow-Origin", origin);
                http.addHeader("Vary", "Origin");
            }
            chain.doFilter(request, response);
        };
    }

    /** A request-id filter: a fresh id on every request. */
    private Filter requestId() {
        return (request, response, chain) -> {
            ((HttpServletResponse) response).setHeader("X-Request-Id", "req-" + requestIds.incrementAndGet());
            chain.doFilter(request, response);
        };
    }

    private TestServer serve(TestServer.Handler handler) throws Exception {
        return serve(List.of(cors(), requestId()), IdempotencyFilter.builder(idem().build()).build(), Map.of(PAYMENTS, handler));
    }

    @Test
    void aRetryFromAnotherOriginGetsItsOwnCorsHeaderAndAFreshRequestId() throws Exception {
        AtomicInteger runs = new AtomicInteger();
        TestServer server = serve((request, response) -> {
            response.addHeader("Vary", "Accept"); // added to the CORS filter's Vary: Origin
            created(runs).handle(request, response);
        });

        HttpResponse<String> first = send(post(server, PAYMENTS, "cors-key", "{}").header("Origin", SHOP_A).build());
        HttpResponse<String> retry = send(post(server, PAYMENTS, "cors-key", "{}").header("Origin", SHOP_B).build());

        assertThat(runs).hasValue(1);
        assertThat(first.headers().firstValue("Access-Control-Allow-Origin")).hasValue(SHOP_A);
        assertThat(first.headers().firstValue("X-Request-Id")).hasValue("req-1");
        assertThat(replayed(retry)).isTrue();
        assertThat(retry.headers().allValues("Access-Control-Allow-Origin")).containsExactly(SHOP_B);
        assertThat(retry.headers().allValues("X-Request-Id")).containsExactly("req-2");
        assertThat(retry.headers().allValues("Vary")).isEqualTo(first.headers().allValues("Vary")).containsExactly("Origin", "Accept");
        assertThat(retry.statusCode()).isEqualTo(first.statusCode()).isEqualTo(201);
        assertThat(retry.body()).isEqualTo(first.body());
        assertThat(retry.headers().firstValue("Location")).isEqualTo(first.headers().firstValue("Location"));
        assertThat(retry.headers().firstValue("X-Handler-Run")).hasValue("1");

        Map<String, List<String>> stored = paymentRecord("cors-key").orElseThrow().response().orElseThrow().headers();
        assertThat(stored).as("only what the handler set is stored")
                .doesNotContainKeys("Access-Control-Allow-Origin", "X-Request-Id")
                .containsEntry("Vary", List.of("Accept"))
                .containsKeys("Location", "X-Handler-Run", "Content-Type");
    }

    @Test
    void aRetryWithoutAnOriginGetsNoCorsHeader() throws Exception {
        AtomicInteger runs = new AtomicInteger();
        TestServer server = serve(created(runs));

        send(post(server, PAYMENTS, "no-origin-retry", "{}").header("Origin", SHOP_A).build());
        HttpResponse<String> retry = send(post(server, PAYMENTS, "no-origin-retry", "{}").build());

        assertThat(runs).hasValue(1);
        assertThat(replayed(retry)).isTrue();
        assertThat(retry.headers().firstValue("Access-Control-Allow-Origin")).isEmpty();
        assertThat(retry.headers().allValues("Vary")).isEmpty();
    }

    @Test
    void aHeaderTheHandlerOverwroteIsTheHandlersOnReplay() throws Exception {
        AtomicInteger runs = new AtomicInteger();
        TestServer server = serve((request, response) -> {
            response.setHeader("X-Request-Id", "chosen-by-handler"); // replaces the outer filter's
            response.setHeader("Access-Control-Allow-Origin", "*");
            created(runs).handle(request, response);
        });

        HttpResponse<String> first = send(post(server, PAYMENTS, "overwrite-key", "{}").header("Origin", SHOP_A).build());
        HttpResponse<String> retry = send(post(server, PAYMENTS, "overwrite-key", "{}").header("Origin", SHOP_B).build());

        assertThat(runs).hasValue(1);
        assertThat(first.headers().allValues("X-Request-Id")).containsExactly("chosen-by-handler");
        assertThat(replayed(retry)).isTrue();
        assertThat(retry.headers().allValues("X-Request-Id")).containsExactly("chosen-by-handler");
        assertThat(retry.headers().allValues("Access-Control-Allow-Origin")).containsExactly("*");
        assertThat(paymentRecord("overwrite-key").orElseThrow().response().orElseThrow().headers())
                .containsEntry("X-Request-Id", List.of("chosen-by-handler"))
                .containsEntry("Access-Control-Allow-Origin", List.of("*"));
    }

    @Test
    void afterTheHandlerResetsTheResponseEveryHeaderIsItsOwn() throws Exception {
        AtomicInteger runs = new AtomicInteger();
        TestServer server = serve((request, response) -> {
            response.setHeader("X-Draft", "dropped");
            response.reset(); // clears the outer filters' headers too, for this caller
            response.addHeader("Vary", "Accept");
            created(runs).handle(request, response);
        });

        HttpResponse<String> first = send(post(server, PAYMENTS, "reset-key", "{}").header("Origin", SHOP_A).build());
        HttpResponse<String> retry = send(post(server, PAYMENTS, "reset-key", "{}").header("Origin", SHOP_B).build());

        assertThat(runs).hasValue(1);
        assertThat(first.headers().firstValue("Access-Control-Allow-Origin")).isEmpty();
        assertThat(first.headers().firstValue("X-Draft")).isEmpty();
        assertThat(paymentRecord("reset-key").orElseThrow().response().orElseThrow().headers())
                .containsEntry("Vary", List.of("Accept"))
                .doesNotContainKeys("Access-Control-Allow-Origin", "X-Request-Id", "X-Draft");
        assertThat(retry.body()).isEqualTo(first.body());
    }
}
