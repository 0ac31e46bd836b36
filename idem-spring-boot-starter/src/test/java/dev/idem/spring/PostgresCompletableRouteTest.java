package dev.idem.spring;

class PostgresCompletableRouteTest extends CompletableRouteTest {
    @Override
    Backend backend() {
        return Backend.POSTGRESQL;
    }
}
