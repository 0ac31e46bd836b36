package dev.idem.spring;

class SqliteStoragePolicyAppTest extends StoragePolicyAppTest {
    @Override
    Backend backend() {
        return Backend.SQLITE;
    }
}
