package dev.idem.spring;

class SqliteCompletableRouteTest extends CompletableRouteTest {
    @Override
    Backend backend() {
        return Backend.SQLITE;
    }
}
