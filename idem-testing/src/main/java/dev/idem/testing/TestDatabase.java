package dev.idem.testing;

import javax.sql.DataSource;

/** An isolated database on a real server, pooled, removed on close. */
public final class TestDatabase implements AutoCloseable {
    private final String product;
    private final DataSource dataSource;
    private final Runnable cleanup;

    TestDatabase(String product, DataSource dataSource, Runnable cleanup) {
        this.product = product;
        this.dataSource = dataSource;
        this.cleanup = cleanup;
    }

    /** "PostgreSQL", "SQLite" or "MariaDB". */
    public String product() {
        return product;
    }

    public DataSource dataSource() {
        return dataSource;
    }

    @Override
    public void close() {
        cleanup.run();
    }

    @Override
    public String toString() {
        return product;
    }
}
