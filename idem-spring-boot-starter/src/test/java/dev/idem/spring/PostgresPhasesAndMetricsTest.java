package dev.idem.spring;

class PostgresPhasesAndMetricsTest extends PhasesAndMetricsTest {
    @Override
    Backend backend() {
        return Backend.POSTGRESQL;
    }
}
