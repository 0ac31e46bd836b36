package dev.idem.spring.migrations;

import dev.idem.testing.RealServices;
import dev.idem.testing.TestDatabase;

/** The store contract on PostgreSQL, idem's tables created by Flyway (idem.migrations=flyway). */
class FlywayPostgresStoreContractTest extends ToolMigratedStoreContract {
    @Override
    TestDatabase openDatabase() {
        return RealServices.postgres();
    }

    @Override
    MigrationTool tool() {
        return MigrationTool.FLYWAY;
    }
}
