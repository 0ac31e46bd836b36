package dev.idem.spring.migrations;

import dev.idem.jdbc.JdbcIdempotencyStore;
import dev.idem.spi.IdempotencyStore;
import dev.idem.testing.IdempotencyStoreContract;
import dev.idem.testing.StoreAdministrationContract;
import dev.idem.testing.TestDatabase;

/** The store contract and its administration on tables that Flyway or Liquibase created from idem's files, through the starter. */
abstract class ToolMigratedStoreContract extends IdempotencyStoreContract implements StoreAdministrationContract {
    private TestDatabase db;

    abstract TestDatabase openDatabase();

    abstract MigrationTool tool();

    @Override
    protected IdempotencyStore newStore() {
        db = openDatabase();
        tool().migrate(db.dataSource());
        return JdbcIdempotencyStore.builder(db.dataSource()).build();  // not migrate(): the tool made the table
    }

    @Override
    protected void closeStore() {
        db.close();
    }
}
