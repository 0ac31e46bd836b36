package dev.idem.spring.migrations;

import dev.idem.testing.RealServices;
import dev.idem.testing.TestDatabase;

/** The store contract on PostgreSQL, idem's tables created by Liquibase (idem.migrations=liquibase). */
class LiquibasePostgresStoreContractTest extends ToolMigratedStoreContract {
    @Override
    TestDatabase openDatabase() {
        return RealServices.postgres();
    }

    @Override
    MigrationTool tool() {
        return MigrationTool.LIQUIBASE;
    }
}
