package dev.idem.spring;

class SqlitePhasesAndMetricsTest extends PhasesAndMetricsTest {
    @Override
    Backend backend() {
        return Backend.SQLITE;
    }
}
