package dev.idem.spring.migrations;

import dev.idem.testing.RealServices;
import dev.idem.testing.TestDatabase;

/** The store contract on MariaDB, idem's tables created by Liquibase (idem.migrations=liquibase). */
class LiquibaseMariadbStoreContractTest extends ToolMigratedStoreContract {
    @Override
    TestDatabase openDatabase() {
        return RealServices.mariadb();
    }

    @Override
    MigrationTool tool() {
        return MigrationTool.LIQUIBASE;
    }
}
