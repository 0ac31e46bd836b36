package dev.idem.inbox;

import dev.idem.jdbc.testing.Backends;

class SqliteInboxTest extends InboxContract {
    @Override
    protected Backends backend() {
        return Backends.SQLITE;
    }
}
