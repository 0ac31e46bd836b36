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
}
