package dev.idem.jdbc;

class PostgresForcedDeadlockTest extends ForcedDeadlockContract {
    @Override
    protected Backends backend() {
        return Backends.POSTGRESQL;
    }
}
