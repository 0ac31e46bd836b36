package dev.idem.spring;

class SqliteLostResponseTest extends LostResponseTest {
    @Override
    Backend backend() {
        return Backend.SQLITE;
    }
}
