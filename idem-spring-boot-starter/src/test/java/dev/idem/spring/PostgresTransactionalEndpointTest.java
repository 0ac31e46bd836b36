package dev.idem.spring;

class PostgresTransactionalEndpointTest extends TransactionalEndpointTest {
    @Override
    Backend backend() {
        return Backend.POSTGRESQL;
    }

    /** Duplicates block on the uncommitted claim's row lock, which pg_stat_activity shows. */
    @Override
    void awaitDuplicatesBlocked() throws Exception {
        ConcurrencyTest.awaitTrue("a duplicate waits on the uncommitted claim", () -> {
            try {
                return lockWaiters() >= 1;
            } catch (java.sql.SQLException e) {
                throw new IllegalStateException(e);
            }
        });
    }
}
