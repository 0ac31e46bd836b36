package dev.idem.docs.samples;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.Idem;
import dev.idem.client.IdempotentResponse;
import dev.idem.demo.proxy.FaultProxy;
import dev.idem.jdbc.JdbcIdempotencyStore;
import dev.idem.testing.RealServices;
import dev.idem.testing.TestDatabase;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The filter's and the client's samples run as printed: a Jetty 12 application registers the filter
 * from the sample (idem on SQLite), its handler charges in a phase, and the client talks to it.
 */
class HttpSamplesTest {
    /**
     * The fault proxy's dice for seed 132 and probability 0.5: the first response is dropped (the first
     * roll is 0.097), the second one passes (0.99). Seeded {@link java.util.Random} is the same on every JVM.
     */
    private static final long FIRST_RESPONSE_LOST = 132;

    private final List<String> charges = new CopyOnWriteArrayList<>();
    private TestDatabase db;
    private Server server;
    private URI payments;

    @BeforeEach
    void startApplication() throws Exception {
        db = RealServices.sqlite();
        JdbcIdempotencyStore store = JdbcIdempotencyStore.builder(db.dataSource()).build();
        store.migrate();
        Idem idem = Idem.builder().store(store).build();
        server = new Server();
        ServerConnector connector = new ServerConnector(server);
        connector.setHost("127.0.0.1");
        server.addConnector(connector);
        ServletContextHandler context = new ServletContextHandler("/");
        context.addServletContainerInitializer((classes, servletContext) -> HttpSamples.registerFilter(servletContext, idem));
        context.addServlet(new ServletHolder(new PaymentsServlet()), "/payments");
        server.setHandler(context);
        server.start();
        payments = URI.create("http://127.0.0.1:" + connector.getLocalPort() + "/payments");
    }

    @AfterEach
    void stopApplication() throws Exception {
        server.stop();
        db.close();
    }

    /** POST /payments: charges 100 in a phase of the filter's claim and answers 201 with the charge id. */
    private final class PaymentsServlet extends HttpServlet {
        private static final long serialVersionUID = 1L;

        @Override
        protected void doPost(HttpServletRequest request, HttpServletResponse response) throws IOException {
            try {
                String chargeId = HttpSamples.chargeInHandler(request, (key, amount) -> {
                    charges.add(key);
                    return "ch_" + charges.size();
                }, 100);
                response.setStatus(201);
                response.getWriter().write(chargeId);
            } catch (IOException | RuntimeException e) {
                throw e;
            } catch (Exception e) {
                throw new IOException(e);
            }
        }
    }

    @Test
    @DisplayName("http-filter and http-filter-phases: a repeat with the same key gets the stored 201, replayed, and nothing is charged twice")
    void filterAndPhases() throws Exception {
        HttpClient http = HttpClient.newHttpClient();
        HttpRequest request = HttpRequest.newBuilder(payments).header("Idempotency-Key", "order-1")
                .POST(HttpRequest.BodyPublishers.ofString("{\"amount\":100}")).build();

        HttpResponse<String> first = http.send(request, HttpResponse.BodyHandlers.ofString());
        HttpResponse<String> repeat = http.send(request, HttpResponse.BodyHandlers.ofString());
        HttpResponse<String> keyless = http.send(HttpRequest.newBuilder(payments).POST(HttpRequest.BodyPublishers.ofString("{}")).build(),
                HttpResponse.BodyHandlers.ofString());

        assertThat(first.statusCode()).isEqualTo(201);
        assertThat(repeat.statusCode()).isEqualTo(201);
        assertThat(repeat.body()).isEqualTo(first.body());
        assertThat(repeat.headers().firstValue("Idempotent-Replayed")).contains("true");
        assertThat(keyless.statusCode()).as("key required").isEqualTo(400);
        assertThat(charges).hasSize(1).allSatisfy(key -> assertThat(key).startsWith("charge-"));
    }

    @Test
    @DisplayName("http-client: the first response is lost on the way back; the retry with the same key is answered with the stored response")
    void clientRetriesALostResponse() throws Exception {
        try (FaultProxy proxy = FaultProxy.builder("127.0.0.1", payments.getPort()).dropResponse(0.5).seed(FIRST_RESPONSE_LOST).build().start()) {
            URI throughProxy = URI.create("http://127.0.0.1:" + proxy.port() + "/payments");
            HttpRequest request = HttpRequest.newBuilder(throughProxy).POST(HttpRequest.BodyPublishers.ofString("{\"amount\":100}")).build();

            IdempotentResponse<String> paid = HttpSamples.client(request, "pressed-pay-" + System.nanoTime());

            assertThat(paid.attempts()).isEqualTo(2);
            assertThat(paid.replayed()).isTrue();
            assertThat(paid.statusCode()).isEqualTo(201);
            assertThat(paid.body()).isEqualTo("ch_1");
            assertThat(charges).hasSize(1);
            assertThat(proxy.stats().responsesDropped()).as("the first response was really lost").isEqualTo(1);
        }
    }
}
