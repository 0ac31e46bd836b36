/**
 * idem's JDBC key store and the JDBC foundation: {@code JdbcIdempotencyStore} with PostgreSQL, SQLite and
 * MariaDB dialects and the transactional mode ({@code dev.idem.jdbc}), and the support API that idem's
 * inbox, outbox, upserts and Kafka offset store are built on: SQL statements, migrations, the transaction
 * seam and store calls, table names ({@code dev.idem.jdbc.support}). What only the key store needs lives
 * in {@code dev.idem.jdbc.internal}, which is not exported.
 */
module dev.idem.jdbc {
    requires transitive dev.idem.core;
    requires transitive java.sql;

    exports dev.idem.jdbc;
    exports dev.idem.jdbc.support;
}
