package dev.idem.spring;

class PostgresMalformedInputTest extends MalformedInputTest {
    @Override
    Backend backend() {
        return Backend.POSTGRESQL;
    }
}
