package dev.idem.spring;

class PostgresConcurrencyTest extends ConcurrencyTest {
    @Override
    Backend backend() {
        return Backend.POSTGRESQL;
    }
}
