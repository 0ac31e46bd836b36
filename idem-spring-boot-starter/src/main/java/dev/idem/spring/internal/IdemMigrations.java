package dev.idem.spring.internal;

import dev.idem.StoreException;
import dev.idem.jdbc.Dialect;
import dev.idem.jdbc.support.Migrator;
import dev.idem.spring.IdemProperties;
import java.sql.Connection;
import java.sql.SQLException;
import javax.sql.DataSource;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.util.ClassUtils;

/**
 * Creates idem's tables the way {@code idem.migrations} says: each component with idem's own migrator,
 * or all of idem's files on the class path at once with Flyway or Liquibase, or not at all. The tools
 * run once per application, however many components (store, inbox) ask.
 */
public final class IdemMigrations {
    /** Flyway's history of idem's files: its own table, so idem's versions never meet the application's. */
    public static final String FLYWAY_HISTORY_TABLE = "idem_flyway_schema_history";

    private static final Log log = LogFactory.getLog(IdemMigrations.class);

    private final DataSource dataSource;
    private final IdemProperties.Migrations mode;
    private boolean toolApplied;

    public IdemMigrations(DataSource dataSource, IdemProperties properties) {
        this.dataSource = dataSource;
        this.mode = properties.getSchema().isInitialize() ? properties.getMigrations() : IdemProperties.Migrations.NONE;
        ClassLoader loader = IdemMigrations.class.getClassLoader();
        requireTool(loader);
        if (mode == IdemProperties.Migrations.IDEM && (ClassUtils.isPresent("org.flywaydb.core.Flyway", loader)
                || ClassUtils.isPresent("liquibase.Liquibase", loader))) {
            log.info("idem creates its tables with its own migrator; to have Flyway or Liquibase apply them, "
                    + "set idem.migrations=flyway or idem.migrations=liquibase (or none, if your own migrations include them)");
        }
    }

    public IdemProperties.Migrations mode() {
        return mode;
    }

    /**
     * Brings a component's tables up to date: {@code ownMigration} with idem's migrator, every idem file
     * at once with Flyway or Liquibase (the first call only), nothing with {@code none}.
     */
    public void apply(Runnable ownMigration) {
        switch (mode) {
            case IDEM -> ownMigration.run();
            case FLYWAY, LIQUIBASE -> applyToolOnce();
            case NONE -> { }
        }
    }

    private synchronized void applyToolOnce() {
        if (toolApplied) {
            return;
        }
        Dialect dialect = dialect();
        if (mode == IdemProperties.Migrations.FLYWAY) {
            FlywayRun.migrate(dataSource, dialect);
        } else {
            LiquibaseRun.update(dataSource, dialect);
        }
        toolApplied = true;
    }

    private void requireTool(ClassLoader loader) {
        if (mode == IdemProperties.Migrations.FLYWAY && !ClassUtils.isPresent("org.flywaydb.core.Flyway", loader)) {
            throw new IllegalStateException("idem.migrations=flyway needs org.flywaydb:flyway-core on the class path "
                    + "(with flyway-database-postgresql or flyway-mysql for PostgreSQL or MariaDB)");
        }
        if (mode == IdemProperties.Migrations.LIQUIBASE && !ClassUtils.isPresent("liquibase.Liquibase", loader)) {
            throw new IllegalStateException("idem.migrations=liquibase needs org.liquibase:liquibase-core on the class path");
        }
    }

    private Dialect dialect() {
        try (Connection c = dataSource.getConnection()) {
            return Dialect.detect(c);
        } catch (SQLException e) {
            throw StoreException.failed("JDBC migrations of idem's tables", "migrate", null, e);
        }
    }

    /** Flyway's types, loaded only when Flyway is chosen. */
    private static final class FlywayRun {
        static void migrate(DataSource dataSource, Dialect dialect) {
            String location = Migrator.idemFolder(dialect);
            org.flywaydb.core.Flyway.configure(IdemMigrations.class.getClassLoader())
                    .dataSource(dataSource)
                    .locations("classpath:" + location.substring(0, location.length() - 1))
                    .table(FLYWAY_HISTORY_TABLE)
                    // The application's own tables may be there already: start idem's history below its first version.
                    .baselineOnMigrate(true)
                    .baselineVersion("0")
                    // Each module ships its own versions: a module added later brings lower numbers than one applied before.
                    .outOfOrder(true)
                    .load()
                    .migrate();
        }
    }

    /** Liquibase's types, loaded only when Liquibase is chosen. */
    private static final class LiquibaseRun {
        @SuppressWarnings("deprecation")  // Liquibase.update: the one-call API, kept through the 4.x line
        static void update(DataSource dataSource, Dialect dialect) {
            String changelog = Migrator.IDEM_FOLDER + "changelog-" + dialect.name().toLowerCase(java.util.Locale.ROOT) + ".xml";
            try (Connection c = dataSource.getConnection()) {
                liquibase.database.Database database = liquibase.database.DatabaseFactory.getInstance()
                        .findCorrectDatabaseImplementation(new liquibase.database.jvm.JdbcConnection(c));
                try (liquibase.Liquibase liquibase = new liquibase.Liquibase(changelog,
                        new liquibase.resource.ClassLoaderResourceAccessor(IdemMigrations.class.getClassLoader()), database)) {
                    liquibase.update(new liquibase.Contexts(), new liquibase.LabelExpression());
                }
            } catch (SQLException e) {
                throw StoreException.failed("JDBC migrations of idem's tables", "migrate", null, e);
            } catch (Exception e) {
                throw new IllegalStateException("Liquibase could not apply " + changelog + ": " + e.getMessage(), e);
            }
        }
    }
}
