package dev.idem.upserts;

import dev.idem.jdbc.Dialect;

/** How a database's upsert tells an insert from an update. */
enum UpsertReport {
    /** {@code upsert_inserted_flag}: the upsert returns whether it inserted (PostgreSQL). */
    RETURNED_FLAG,
    /** {@code upsert_update} and {@code upsert_exists}: insert-or-ignore, then a guarded update (MariaDB). */
    SEPARATE_UPDATE,
    /** The row count of a guarded upsert, with a look-up before it (SQLite). */
    ROW_COUNT;

    static UpsertReport of(Dialect dialect) {
        return switch (dialect) {
            case POSTGRESQL -> RETURNED_FLAG;
            case MARIADB -> SEPARATE_UPDATE;
            case SQLITE -> ROW_COUNT;
        };
    }
}
