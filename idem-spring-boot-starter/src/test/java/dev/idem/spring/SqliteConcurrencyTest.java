package dev.idem.spring;

class SqliteConcurrencyTest extends ConcurrencyTest {
    @Override
    Backend backend() {
        return Backend.SQLITE;
    }
}
