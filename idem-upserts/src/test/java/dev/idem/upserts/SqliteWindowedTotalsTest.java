package dev.idem.upserts;

import dev.idem.jdbc.testing.Backends;

class SqliteWindowedTotalsTest extends WindowedTotalsContract {
    @Override
    protected Backends backend() {
        return Backends.SQLITE;
    }
}
