package dev.idem.jdbc;

class SqliteInboxTest extends InboxContract {
    @Override
    protected Backends backend() {
        return Backends.SQLITE;
    }
}
