package dev.idem.upserts;

import dev.idem.jdbc.testing.Backends;

class PostgresWindowedTotalsTest extends WindowedTotalsContract {
    @Override
    protected Backends backend() {
        return Backends.POSTGRESQL;
    }
}
