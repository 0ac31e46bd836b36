package dev.idem.upserts;

import dev.idem.jdbc.testing.Backends;

class PostgresUpsertsTest extends UpsertsContract {
    @Override
    protected Backends backend() {
        return Backends.POSTGRESQL;
    }
}
