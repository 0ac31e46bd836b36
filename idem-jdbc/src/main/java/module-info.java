/**
 * idem's JDBC foundation and key store: {@code JdbcIdempotencyStore} with PostgreSQL, SQLite and MariaDB
 * dialects, the transactional mode, and the internals (SQL loader, migrator, transaction seam) that the
 * inbox, outbox and upserts modules and idem-kafka build on.
 */
module dev.idem.jdbc {
    requires transitive dev.idem.core;
    requires transitive java.sql;

    exports dev.idem.jdbc;
    // Not API: shared with idem's own JDBC modules only.
    exports dev.idem.jdbc.internal to dev.idem.inbox, dev.idem.outbox, dev.idem.upserts, dev.idem.kafka, dev.idem.spring;
}
