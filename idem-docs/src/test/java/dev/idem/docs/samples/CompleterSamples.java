package dev.idem.docs.samples;

import dev.idem.Completer;
import dev.idem.Fingerprint;
import dev.idem.Idem;
import dev.idem.IdempotencyKey;
import dev.idem.InputCodec;
import dev.idem.OperationRegistry;
import dev.idem.Outcome;
import dev.idem.Scope;
import dev.idem.StoredResponse;
import dev.idem.http.StoredRequest;
import dev.idem.servlet.IdempotencyFilter;
import dev.idem.servlet.RoutePolicy;
import dev.idem.servlet.ServletCompletion;
import jakarta.servlet.Servlet;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/** The samples of docs/completer.md, as they are printed. */
public final class CompleterSamples {
    private CompleterSamples() {
    }

    /** What the samples built: the registry, the call's outcome and the running completer. */
    public record Ran(OperationRegistry operations, Outcome outcome, Completer completer) {
    }

    public static Ran completer(Idem idem, CardGateway gateway, Scope scope, IdempotencyKey key, Fingerprint fingerprint,
            String amount) {
        // sample: completer-register
        OperationRegistry operations = OperationRegistry.builder()
                .register("charge", InputCodec.UTF8, (run, amountText) -> {
                    String charge = run.phase("charge", k -> gateway.charge(k, Long.parseLong(amountText)));
                    return StoredResponse.of(201, charge.getBytes(StandardCharsets.UTF_8));
                })
                .build();
        Outcome outcome = idem.execute(scope, key, fingerprint, operations.operation("charge", amount));
        // end sample
        // sample: completer-start
        Completer completer = Completer.builder(idem, operations)
                .delay(Duration.ofMinutes(2))          // after the lease ended: the client's chance to retry
                .pollInterval(Duration.ofSeconds(10))
                .maxAttempts(5)                        // the record's attempts in all, then parked
                .build()
                .start();                              // one daemon thread; close() on shutdown
        // end sample
        return new Ran(operations, outcome, completer);
    }

    /** What the servlet sample built: the registry its route stores requests for, and the filter. */
    public record ServletRoute(OperationRegistry operations, IdempotencyFilter filter) {
    }

    public static ServletRoute servletRoute(Idem idem, Servlet servlet) {
        // sample: completer-servlet-route
        OperationRegistry operations = OperationRegistry.builder()
                .register("http:POST:/payments", StoredRequest.CODEC, ServletCompletion.of(servlet, idem.maxResponseBytes()))
                .build();
        IdempotencyFilter filter = IdempotencyFilter.builder(idem)
                .routePolicyResolver(request -> request.getServletPath().equals("/payments")
                        ? RoutePolicy.required().withCompletion(operations, "http:POST:/payments")
                        : RoutePolicy.required())
                .build();
        Completer completer = Completer.builder(idem, operations).build().start();
        // end sample
        completer.close();
        return new ServletRoute(operations, filter);
    }
}
