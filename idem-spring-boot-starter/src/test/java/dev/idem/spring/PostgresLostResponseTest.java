package dev.idem.spring;

class PostgresLostResponseTest extends LostResponseTest {
    @Override
    Backend backend() {
        return Backend.POSTGRESQL;
    }
}
