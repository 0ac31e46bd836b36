package dev.idem.quarkus.internal;

import dev.idem.Idem;
import dev.idem.IdemListener;
import dev.idem.inbox.Inbox;
import dev.idem.jakarta.rest.IdempotencyFeature;
import dev.idem.jakarta.rest.ScopeResolver;
import dev.idem.jdbc.JdbcIdempotencyStore;
import dev.idem.quarkus.IdemConfig;
import dev.idem.spi.IdempotencyStore;
import io.quarkus.arc.All;
import io.quarkus.arc.DefaultBean;
import io.quarkus.runtime.StartupEvent;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;
import java.util.List;
import javax.sql.DataSource;

/**
 * The beans of the extension: the store on the application's default datasource, the engine over it and
 * the Jakarta REST feature whose filters {@link IdempotentBinding} binds. The store and the engine are
 * default beans, so an application's own {@code IdempotencyStore} or {@code Idem} replaces them. The
 * engine reports to every {@link IdemListener} bean: the meters' and the span events' (when the build
 * added {@link MicrometerListenerProducer} or {@link OpenTelemetryListenerProducer}) and the application's.
 */
@Singleton
public class IdemProducers {

    /** The JDBC store on the default datasource, its table created or upgraded here unless the application migrates it. */
    @Produces
    @Singleton
    @DefaultBean
    public IdempotencyStore idempotencyStore(DataSource dataSource, IdemConfig config) {
        JdbcIdempotencyStore store = JdbcIdempotencyStore.builder(dataSource).tableName(config.jdbc().tableName()).build();
        if (config.jdbc().migrateAtStart()) {
            store.migrate();
        }
        return store;
    }

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

    /**
     * The inbox on the default datasource, for consumers ({@code @Incoming} methods) that apply each
     * message once: {@code Inbox.process} claims the message's id in the transaction of the handler's
     * writes. Built, and its tables migrated, when a bean first needs it.
     */
    @Produces
    @Singleton
    @DefaultBean
    public Inbox inbox(DataSource dataSource, IdemConfig config) {
        Inbox inbox = Inbox.builder(dataSource).build();
        if (config.jdbc().migrateAtStart()) {
            inbox.migrate();
        }
        return inbox;
    }

    /** Builds the engine, and so migrates the store, before the application takes requests: a bad setting fails startup. */
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
