package dev.idem.spring;

class SqliteHttpSemanticsTest extends HttpSemanticsTest {
    @Override
    Backend backend() {
        return Backend.SQLITE;
    }
}
