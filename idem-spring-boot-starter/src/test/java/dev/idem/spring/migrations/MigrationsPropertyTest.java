package dev.idem.spring.migrations;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.inbox.Inbox;
import dev.idem.inbox.InboxOutcome;
import dev.idem.jdbc.JdbcIdempotencyStore;
import dev.idem.spring.internal.IdemMigrations;
import dev.idem.testing.RealServices;
import dev.idem.testing.TestDatabase;
import java.util.function.Supplier;
import java.util.stream.Stream;
import javax.sql.DataSource;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** idem.migrations: which of idem's migrator, Flyway, Liquibase or nothing creates idem's tables, on PostgreSQL and MariaDB. */
class MigrationsPropertyTest {

    enum Database {
        POSTGRESQL(RealServices::postgres), MARIADB(RealServices::mariadb);

        final Supplier<TestDatabase> open;

        Database(Supplier<TestDatabase> open) {
            this.open = open;
        }
    }

    static Stream<Arguments> toolsAndDatabases() {
        return Stream.of(MigrationTool.values()).flatMap(tool -> Stream.of(Database.values()).map(db -> Arguments.of(tool, db)));
    }

    @ParameterizedTest(name = "{0} on {1}")
    @MethodSource("toolsAndDatabases")
    @DisplayName("the tool applies every idem file once; a restart applies nothing; the inbox works; idem's migrator did not run")
    void theToolAppliesIdemsFiles(MigrationTool tool, Database database) throws Exception {
        try (TestDatabase db = database.open.get()) {
            tool.migrate(db.dataSource());
            tool.application(db.dataSource()).run(context -> {
                assertThat(context).hasNotFailed();
                Inbox inbox = context.getBean(Inbox.class);
                assertThat(inbox.process("payments", "m-1", (c, m) -> { }).status()).isEqualTo(InboxOutcome.Status.PROCESSED);
                assertThat(inbox.process("payments", "m-1", (c, m) -> { }).status()).isEqualTo(InboxOutcome.Status.DUPLICATE);
            });
            assertThat(tool.applied(db.dataSource())).as("after a restart").containsExactlyElementsOf(tool.allOfIdem());
            assertThat(MigrationTool.tableExists(db.dataSource(), "idem_record_schema_history")).isFalse();
            assertThat(MigrationTool.tableExists(db.dataSource(), "idem_kafka_offset")).isTrue();
        }
    }

    @ParameterizedTest(name = "{0} on {1}")
    @MethodSource("toolsAndDatabases")
    @DisplayName("a database idem's own migrator created is taken over by the tool (every file is IF NOT EXISTS)")
    void theToolTakesOverFromIdemsMigrator(MigrationTool tool, Database database) throws Exception {
        try (TestDatabase db = database.open.get()) {
            JdbcIdempotencyStore store = JdbcIdempotencyStore.builder(db.dataSource()).build();
            store.migrate();
            Inbox.builder(store).build().migrate();
            tool.migrate(db.dataSource());
        }
    }

    @Test
    @DisplayName("by default idem's own migrator creates the tables, with its history; Flyway keeps no history of them")
    void theDefaultIsIdemsMigrator() throws Exception {
        try (TestDatabase db = RealServices.postgres()) {
            DataSource ds = db.dataSource();
            MigrationTool.FLYWAY.application(ds).withPropertyValues("idem.migrations=idem").run(context -> {
                assertThat(context).hasNotFailed();
                assertThat(context.getBean(IdemMigrations.class).mode().name()).isEqualTo("IDEM");
            });
            new org.springframework.boot.test.context.runner.ApplicationContextRunner()
                    .withConfiguration(org.springframework.boot.autoconfigure.AutoConfigurations.of(dev.idem.spring.IdemAutoConfiguration.class))
                    .withBean(DataSource.class, () -> new org.springframework.jdbc.datasource.DelegatingDataSource(ds))
                    .withPropertyValues("idem.sweeper.enabled=false")
                    .run(context -> assertThat(context.getBean(IdemMigrations.class).mode().name()).isEqualTo("IDEM"));
            assertThat(MigrationTool.tableExists(ds, "idem_record_schema_history")).isTrue();
            assertThat(MigrationTool.tableExists(ds, IdemMigrations.FLYWAY_HISTORY_TABLE)).isFalse();
        }
    }

    @Test
    @DisplayName("idem.migrations=none, and idem.schema.initialize=false, create no table")
    void noneCreatesNothing() throws Exception {
        for (String setting : new String[] {"idem.migrations=none", "idem.schema.initialize=false"}) {
            try (TestDatabase db = RealServices.postgres()) {
                MigrationTool.FLYWAY.application(db.dataSource()).withPropertyValues(setting).run(context -> {
                    assertThat(context).hasNotFailed();
                    context.getBean(JdbcIdempotencyStore.class);
                    assertThat(context.getBean(IdemMigrations.class).mode().name()).as(setting).isEqualTo("NONE");
                });
                assertThat(MigrationTool.tableExists(db.dataSource(), "idem_record")).as(setting).isFalse();
                assertThat(MigrationTool.tableExists(db.dataSource(), IdemMigrations.FLYWAY_HISTORY_TABLE)).as(setting).isFalse();
            }
        }
    }

    @Test
    @DisplayName("an unknown idem.migrations value fails start-up naming the property")
    void anUnknownValueFailsStartup() throws Exception {
        try (TestDatabase db = RealServices.postgres()) {
            MigrationTool.FLYWAY.application(db.dataSource()).withPropertyValues("idem.migrations=hibernate")
                    .run(context -> assertThat(context).hasFailed().getFailure().hasStackTraceContaining("idem.migrations"));
        }
    }
}
