package dev.idem.upserts;

import dev.idem.jdbc.testing.Backends;

class PostgresForcedDeadlockTest extends ForcedDeadlockContract {
    @Override
    protected Backends backend() {
        return Backends.POSTGRESQL;
    }
}
