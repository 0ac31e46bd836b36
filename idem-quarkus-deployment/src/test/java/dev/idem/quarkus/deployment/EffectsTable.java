package dev.idem.quarkus.deployment;

import io.quarkus.runtime.StartupEvent;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Singleton;
import javax.sql.DataSource;

/** Part of the test applications: creates the table their resources record effects in. */
@Singleton
public class EffectsTable {
    void create(@Observes StartupEvent event, DataSource dataSource) {
        Http.createEffectsTable(dataSource);
    }
}
