package dev.idem.upserts;

import dev.idem.jdbc.testing.Backends;

class SqliteUpsertsTest extends UpsertsContract {
    @Override
    protected Backends backend() {
        return Backends.SQLITE;
    }
}
