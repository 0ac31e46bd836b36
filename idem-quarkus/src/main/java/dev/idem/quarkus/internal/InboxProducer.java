package dev.idem.quarkus.internal;

import dev.idem.inbox.Inbox;
import dev.idem.quarkus.IdemConfig;
import io.quarkus.arc.DefaultBean;
import jakarta.enterprise.inject.Instance;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;
import javax.sql.DataSource;

/** The inbox: a bean only when the application has a default JDBC datasource (whichever store keeps the keys). */
@Singleton
public class InboxProducer {

    /**
     * The inbox on the default datasource, for consumers ({@code @Incoming} methods) that apply each
     * message once: {@code Inbox.process} claims the message's id in the transaction of the handler's
     * writes. Built, and its tables migrated, when a bean first needs it.
     */
    @Produces
    @Singleton
    @DefaultBean
    public Inbox inbox(Instance<DataSource> dataSource, IdemConfig config) {
        // Looked up here, not injected: a datasource Quarkus deactivated (no URL: an application on the Redis
        // store) fails only an application that uses the inbox, with Quarkus' reason, not every startup.
        Inbox inbox = Inbox.builder(dataSource.get()).build();
        if (config.jdbc().migrateAtStart()) {
            inbox.migrate();
        }
        return inbox;
    }
}
