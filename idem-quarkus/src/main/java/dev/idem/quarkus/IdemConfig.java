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

    /** The JDBC store's settings ({@code quarkus.idem.store=jdbc}). */
    Jdbc jdbc();

    /** The Redis store's settings ({@code quarkus.idem.store=redis}). */
    Redis redis();

    /** Settings of the JDBC store ({@code quarkus.idem.store=jdbc}). */
    interface Jdbc {
        /** The store's table (a lower-case SQL identifier). */
        @WithDefault("idem_record")
        String tableName();

        /** Whether startup creates or upgrades the table (idempotent); false if your own migrations do. */
        @WithDefault("true")
        boolean migrateAtStart();
    }

    /** Settings of the Redis store ({@code quarkus.idem.store=redis}). */
    interface Redis {
        /**
         * The server: {@code redis://[user:password@]host:port[/database]}, {@code rediss://} for TLS,
         * or {@code redis-sentinel://}. Default: the application's Redis, {@code quarkus.redis.hosts}
         * (quarkus-redis-client's setting); startup fails, naming both, when neither is set.
         */
        Optional<String> url();

        /** Starts every key the store writes: 1 to 128 visible ASCII characters, no braces. */
        @WithDefault("idem:")
        String keyPrefix();

        /**
         * Whether each record keeps its scope and idempotency key, so that operators can list the keys
         * stuck past their lease by name; off, only the keys' digests reach Redis.
         */
        @WithDefault("false")
        boolean keepKeys();

        /**
         * {@code require-aof}: startup fails unless the server keeps records on disk (appendonly yes,
         * appendfsync always or everysec, no eviction). {@code skip}: no check, for a server known to
         * persist whose {@code CONFIG} command is disabled (managed Redis), or a throwaway test server.
         */
        @WithDefault("require-aof")
        PersistenceCheck persistenceCheck();

        /**
         * How many replicas must acknowledge each claim, checkpoint, completion and renewal
         * ({@code WAIT}) before it counts, 0 (off) to 16; startup fails if the master has fewer
         * connected replicas. Default: 1 for a {@code redis-sentinel://} server, off otherwise.
         */
        Optional<Integer> ackReplicas();

        /** How long {@code WAIT} gives the replicas; a write not acknowledged in time fails as retryable. */
        @WithDefault("1s")
        Duration ackTimeout();

        /** What startup checks about the server's persistence. */
        enum PersistenceCheck {
            /** Refuse a server that would forget records on a restart. */
            REQUIRE_AOF,
            /** Do not check. */
            SKIP
        }
    }
}
