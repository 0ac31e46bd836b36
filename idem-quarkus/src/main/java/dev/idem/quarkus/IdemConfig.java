package dev.idem.quarkus;

import io.quarkus.runtime.annotations.ConfigPhase;
import io.quarkus.runtime.annotations.ConfigRoot;
import io.quarkus.runtime.configuration.MemorySize;
import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import java.time.Duration;
import java.util.Optional;

/**
 * idem's settings in a Quarkus application, under {@code quarkus.idem.*}. Each value is checked where it
 * is used (the engine's and the feature's builders), so a wrong one fails startup with its name.
 */
@ConfigMapping(prefix = "quarkus.idem")
@ConfigRoot(phase = ConfigPhase.RUN_TIME)
public interface IdemConfig {
    /** How long an owner may run (between renewals) before a retry may take over its key. */
    @WithDefault("30s")
    Duration lease();

    /** How long a completed response is replayable. */
    @WithDefault("24h")
    Duration retention();

    /** The request header carrying the idempotency key (an HTTP token). */
    @WithDefault("Idempotency-Key")
    String keyHeader();

    /** Largest request body accepted with a key; larger ones are answered 413 without running anything. */
    @WithDefault("1M")
    MemorySize maxRequestBytes();

    /** Largest response body stored for replay; a larger one is stored without its body. Default: the engine's (8 MiB). */
    Optional<MemorySize> maxResponseBytes();

    /** The {@code Retry-After} of the answers to store failures (503) and lost leases (409). */
    @WithDefault("2s")
    Duration failureRetryAfter();

    /**
     * A credential header (e.g. {@code X-Api-Key}) whose SHA-256 scopes the keys; without it keys are
     * scoped by the request's {@code SecurityContext} principal.
     */
    Optional<String> credentialHeader();

    /** Which store keeps the keys: {@code jdbc}, on the application's default datasource. */
    @WithDefault("jdbc")
    StoreKind store();

    /** The JDBC store's settings. */
    Jdbc jdbc();

    /** The stores this extension can build. */
    enum StoreKind {
        /** A {@code JdbcIdempotencyStore} on the application's default (Agroal) datasource. */
        JDBC
    }

    /** Settings of the JDBC store ({@code quarkus.idem.store=jdbc}). */
    interface Jdbc {
        /** The store's table (a lower-case SQL identifier). */
        @WithDefault("idem_record")
        String tableName();

        /** Whether startup creates or upgrades the table (idempotent); false if your own migrations do. */
        @WithDefault("true")
        boolean migrateAtStart();
    }
}
