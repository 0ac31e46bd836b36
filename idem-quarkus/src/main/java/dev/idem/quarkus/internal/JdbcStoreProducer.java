package dev.idem.quarkus.internal;

import dev.idem.jdbc.JdbcIdempotencyStore;
import dev.idem.quarkus.IdemConfig;
import dev.idem.spi.IdempotencyStore;
import io.quarkus.arc.DefaultBean;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;
import javax.sql.DataSource;

/** The JDBC store ({@code quarkus.idem.store=jdbc}): a bean only when the build chose it, since it needs the default datasource. */
@Singleton
public class JdbcStoreProducer {

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
}
