package dev.idem.jdbc;

import java.nio.file.Path;

/** The SQLite settings idem relies on, as a JDBC URL for the xerial driver. */
public final class Sqlite {
    /** How long a writer waits for another's lock before failing. */
    public static final int BUSY_TIMEOUT_MILLIS = 10_000;

    private Sqlite() {
    }

    /**
     * A URL for {@code file} with WAL journaling (readers never block the writer),
     * {@code synchronous=FULL} (a committed claim survives power loss), a busy timeout, and
     * transactions that take the write lock when they begin, so two transactions never deadlock
     * upgrading a read lock.
     */
    public static String url(Path file) {
        return "jdbc:sqlite:" + file.toAbsolutePath()
                + "?journal_mode=WAL&synchronous=FULL&busy_timeout=" + BUSY_TIMEOUT_MILLIS
                + "&transaction_mode=IMMEDIATE";
    }
}
