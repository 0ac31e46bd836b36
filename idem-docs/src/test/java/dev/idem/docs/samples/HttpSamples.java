package dev.idem.docs.samples;

import dev.idem.Execution;
import dev.idem.Idem;
import dev.idem.client.IdempotentHttpClient;
import dev.idem.client.IdempotentResponse;
import dev.idem.servlet.IdempotencyFilter;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.ServletContext;
import jakarta.servlet.http.HttpServletRequest;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse.BodyHandlers;
import java.util.EnumSet;

/** The filter's and the client's samples of docs/http.md, as they are printed (the starter's are in {@link StarterSampleApplication}). */
public final class HttpSamples {
    private HttpSamples() {
    }

    /** Registers the filter while the container starts the application (a listener or initializer). */
    public static void registerFilter(ServletContext servletContext, Idem idem) {
        // sample: http-filter
        IdempotencyFilter filter = IdempotencyFilter.builder(idem).build();            // POST and PATCH, key required
        servletContext.addFilter("idempotency", filter)
                .addMappingForUrlPatterns(EnumSet.of(DispatcherType.REQUEST), false, "/*");
        // end sample
    }

    /** A handler behind the filter: the charge runs as a phase of the request's claim. */
    public static String chargeInHandler(HttpServletRequest request, CardGateway gateway, long amount) throws Exception {
        // sample: http-filter-phases
        Execution execution = IdempotencyFilter.execution(request).orElseThrow();
        String chargeId = execution.phase("charge", downstreamKey -> gateway.charge(downstreamKey, amount));
        // end sample
        return chargeId;
    }

    public static IdempotentResponse<String> client(HttpRequest request, String keyMadeWhenUserPressedPay) throws InterruptedException {
        // sample: http-client
        IdempotentHttpClient client = IdempotentHttpClient.builder(HttpClient.newHttpClient()).build();
        IdempotentResponse<String> paid = client.send(request, BodyHandlers.ofString(), keyMadeWhenUserPressedPay);
        paid.attempts();   // 2: the first response was lost
        paid.replayed();   // true: the server had executed it once and replayed its stored answer
        // end sample
        return paid;
    }
}
