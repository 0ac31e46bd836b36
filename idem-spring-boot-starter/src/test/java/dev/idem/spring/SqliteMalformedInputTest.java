package dev.idem.spring;

class SqliteMalformedInputTest extends MalformedInputTest {
    @Override
    Backend backend() {
        return Backend.SQLITE;
    }
}
