package dev.idem.webflux;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.Idem;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.springframework.http.HttpStatus;
import reactor.blockhound.BlockingOperationError;
import reactor.core.publisher.Mono;

/** The BlockHound the other tests rely on is installed and reports a blocking call on a Netty event loop. */
class BlockHoundBitesHttpTest extends WebFilterTestSupport {
    @Test
    void aHandlerThatSleepsOnTheEventLoopIsReported() throws Exception {
        StoreBackend.Opened opened = open(StoreBackend.POSTGRESQL);
        AtomicReference<Throwable> reported = new AtomicReference<>();
        AtomicReference<String> thread = new AtomicReference<>();
        WebFluxServer server = serve(filter(Idem.builder().store(opened.store()).build()).build(), Map.of("/block", exchange -> {
            thread.set(Thread.currentThread().getName());
            try {
                Thread.sleep(1); // a GET is not covered: this runs on the event loop, where blocking is forbidden
            } catch (Throwable e) {
                reported.set(e);
                return Mono.error(e);
            }
            return WebFluxServer.json(exchange, HttpStatus.OK, "{}");
        }));

        HttpResponse<String> response = client.send(HttpRequest.newBuilder(server.uri("/block")).GET().build(),
                HttpResponse.BodyHandlers.ofString());

        assertThat(thread.get()).startsWith("reactor-http-");
        assertThat(reported.get()).isInstanceOf(BlockingOperationError.class).hasMessageContaining("Thread.sleep");
        assertThat(response.statusCode()).isEqualTo(500);
    }
}
