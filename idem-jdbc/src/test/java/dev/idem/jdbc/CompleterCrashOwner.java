package dev.idem.jdbc;

import dev.idem.Fingerprint;
import dev.idem.Idem;
import dev.idem.IdempotencyKey;
import dev.idem.InputCodec;
import dev.idem.OperationRegistry;
import dev.idem.Scope;
import dev.idem.StoredResponse;
import dev.idem.jdbc.testing.UrlDataSource;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;

/**
 * The owner {@link PostgresCompleterCrashTest} kills: a child JVM that runs the registered "pay" operation
 * and stops inside its second phase, after that phase's effect and before its checkpoint, until SIGKILL.
 * The registry is shared with the test, which completes the record with it.
 *
 * <p>Arguments: JDBC URL, scope principal, idempotency key, input, effects file.
 */
final class CompleterCrashOwner {
    static final Duration LEASE = Duration.ofSeconds(2);
    static final String STOPPED = "owner stopped inside receipt";

    private CompleterCrashOwner() {
    }

    public static void main(String[] args) {
        Path effects = Path.of(args[4]);
        JdbcIdempotencyStore store = JdbcIdempotencyStore.builder(new UrlDataSource(args[0])).build();
        Idem idem = Idem.builder().store(store).lease(LEASE).build();   // renews its lease until it is killed
        idem.execute(scope(args[1]), IdempotencyKey.of(args[2]), fingerprint(args[3]), payments(effects, true).operation("pay", args[3]));
        throw new IllegalStateException("the owner was meant to be killed inside its receipt phase");
    }

    static Scope scope(String principal) {
        return Scope.of(principal, "POST /payments");
    }

    static Fingerprint fingerprint(String input) {
        return Fingerprint.builder().part("body", input).build();
    }

    /**
     * "pay": a charge phase, then a receipt phase, each appending its effect and downstream key to
     * {@code effects}; an owner that {@code stops} waits inside the receipt, after its effect.
     */
    static OperationRegistry payments(Path effects, boolean stops) {
        return OperationRegistry.builder().register("pay", InputCodec.UTF8, (run, input) -> {
            run.phase("charge", k -> append(effects, "charge " + input + " " + k));
            run.phase("receipt", k -> {
                append(effects, "receipt " + input + " " + k);
                if (stops) {
                    append(effects, STOPPED);
                    Thread.sleep(Long.MAX_VALUE);
                }
                return k;
            });
            return StoredResponse.of(201, ("paid " + input + " by attempt " + run.attempt()).getBytes(StandardCharsets.UTF_8));
        }).build();
    }

    private static String append(Path effects, String line) {
        try {
            Files.writeString(effects, line + "\n", StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
            return line;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
