package dev.idem.quarkus.internal;

import dev.idem.Idem;
import dev.idem.IdemListener;
import dev.idem.jakarta.rest.IdempotencyFeature;
import dev.idem.jakarta.rest.ScopeResolver;
import dev.idem.quarkus.IdemConfig;
import dev.idem.spi.IdempotencyStore;
import io.quarkus.arc.All;
import io.quarkus.arc.DefaultBean;
import io.quarkus.runtime.StartupEvent;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;
import java.util.List;

/**
 * The beans of the extension: the engine over the store (the build adds {@link JdbcStoreProducer} or
 * {@link RedisStoreProducer}, as {@code quarkus.idem.store} says) and the Jakarta REST feature whose
 * filters {@link IdempotentBinding} binds. The store and the engine are default beans, so an
 * application's own {@code IdempotencyStore} or {@code Idem} replaces them. The
 * engine reports to every {@link IdemListener} bean: the meters' and the span events' (when the build
 * added {@link MicrometerListenerProducer} or {@link OpenTelemetryListenerProducer}) and the application's.
 */
@Singleton
public class IdemProducers {

    @Produces
    @Singleton
    @DefaultBean
    public Idem idem(IdempotencyStore store, IdemConfig config, @All List<IdemListener> listeners) {
        Idem.Builder builder = Idem.builder().store(store).lease(config.lease()).retention(config.retention())
                .listener(IdemListener.all(listeners));
        config.maxResponseBytes().ifPresent(size -> builder.maxResponseBytes(bytes("quarkus.idem.max-response-bytes", size.asLongValue())));
        return builder.build();
    }

    @Produces
    @Singleton
    public IdempotencyFeature idempotencyFeature(Idem idem, IdemConfig config) {
        IdempotencyFeature.Builder builder = IdempotencyFeature.builder(idem)
                .headerName(config.keyHeader())
                .maxRequestBytes(bytes("quarkus.idem.max-request-bytes", config.maxRequestBytes().asLongValue()))
                .failureRetryAfter(config.failureRetryAfter());
        config.credentialHeader().ifPresent(header -> builder.scopeResolver(ScopeResolver.credentialHeader(header)));
        return builder.build();
    }

    /** Builds the engine, and so the store (connected, its table migrated), before the application takes requests: a bad setting fails startup. */
    void atStartup(@Observes StartupEvent event, IdempotencyFeature feature) {
        // Injecting the feature is the point: it is built, with the engine and store under it.
    }

    private static int bytes(String property, long value) {
        if (value > Integer.MAX_VALUE - 8) {
            throw new IllegalArgumentException(property + " must be below 2 GiB, was " + value + " bytes");
        }
        return (int) value;
    }
}
