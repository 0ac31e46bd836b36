package dev.idem.spring;

class SqliteTransactionalEndpointTest extends TransactionalEndpointTest {
    @Override
    Backend backend() {
        return Backend.SQLITE;
    }

    /**
     * Duplicates wait in SQLite's busy handler for the write lock (transactions begin IMMEDIATE),
     * which no view shows: give them a moment to get there.
     */
    @Override
    void awaitDuplicatesBlocked() throws Exception {
        Thread.sleep(500);
    }
}
