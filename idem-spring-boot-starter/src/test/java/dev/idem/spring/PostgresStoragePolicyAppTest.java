package dev.idem.spring;

class PostgresStoragePolicyAppTest extends StoragePolicyAppTest {
    @Override
    Backend backend() {
        return Backend.POSTGRESQL;
    }
}
