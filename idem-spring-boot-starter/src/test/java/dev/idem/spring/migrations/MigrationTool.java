package dev.idem.spring.migrations;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.inbox.Inbox;
import dev.idem.jdbc.JdbcIdempotencyStore;
import dev.idem.spring.IdemAutoConfiguration;
import dev.idem.spring.IdemListenerAutoConfiguration;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.jdbc.datasource.DelegatingDataSource;
import org.springframework.transaction.PlatformTransactionManager;

/** A test application on a real database whose idem tables the chosen tool creates, and what each tool records. */
enum MigrationTool {
    FLYWAY {
        @Override
        List<String> applied(DataSource dataSource) throws SQLException {
            return column(dataSource, "SELECT version FROM idem_flyway_schema_history WHERE success AND type = 'SQL' ORDER BY installed_rank");
        }
    },
    LIQUIBASE {
        @Override
        List<String> applied(DataSource dataSource) throws SQLException {
            return column(dataSource, "SELECT id FROM DATABASECHANGELOG ORDER BY orderexecuted");
        }
    };

    /** What the tool lists as applied: Flyway's versions, Liquibase's change set ids. */
    abstract List<String> applied(DataSource dataSource) throws SQLException;

    /**
     * What {@link #applied} lists once every idem file on this class path has run: all of idem's sequence
     * but the windowed totals' V4 (idem-upserts is not a dependency of the starter).
     */
    List<String> allOfIdem() {
        return this == FLYWAY ? List.of("1", "2", "3", "5", "6")
                : List.of("V1__create_idem_record", "V2__create_idem_inbox", "V3__create_idem_outbox", "V5__create_idem_kafka_offset",
                        "V6__index_idem_record_in_progress");
    }

    /** The test application with {@code idem.migrations=<this tool>} on the database, the store and the inbox made. */
    ApplicationContextRunner application(DataSource dataSource) {
        DataSource unclosable = new DelegatingDataSource(dataSource);
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(IdemAutoConfiguration.class, IdemListenerAutoConfiguration.class))
                .withBean(DataSource.class, () -> unclosable)
                .withBean(PlatformTransactionManager.class, () -> new DataSourceTransactionManager(unclosable))
                .withPropertyValues("idem.migrations=" + name().toLowerCase(java.util.Locale.ROOT), "idem.sweeper.enabled=false");
    }

    /** Starts the test application once, so that the tool creates idem's tables, and checks it did. */
    void migrate(DataSource dataSource) {
        application(dataSource).run(context -> {
            assertThat(context).hasNotFailed();
            context.getBean(JdbcIdempotencyStore.class);
            context.getBean(Inbox.class);
            assertThat(applied(dataSource)).containsExactlyElementsOf(allOfIdem());
        });
    }

    static List<String> column(DataSource dataSource, String query) throws SQLException {
        try (Connection c = dataSource.getConnection(); Statement st = c.createStatement(); ResultSet rs = st.executeQuery(query)) {
            List<String> out = new ArrayList<>();
            while (rs.next()) {
                out.add(rs.getString(1));
            }
            return out;
        }
    }

    static boolean tableExists(DataSource dataSource, String table) throws SQLException {
        // In this test's own schema (PostgreSQL) or database (MariaDB) only: other tests' have the same tables.
        try (Connection c = dataSource.getConnection(); ResultSet rs = c.getMetaData().getTables(c.getCatalog(), c.getSchema(), table, null)) {
            return rs.next();
        }
    }
}
