package dev.idem.upserts;

import dev.idem.jdbc.testing.Backends;

class MariadbWindowedTotalsTest extends WindowedTotalsContract {
    @Override
    protected Backends backend() {
        return Backends.MARIADB;
    }
}
