package dev.idem.spring;

class PostgresHttpSemanticsTest extends HttpSemanticsTest {
    @Override
    Backend backend() {
        return Backend.POSTGRESQL;
    }
}
