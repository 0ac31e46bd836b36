/** idem's JDBC store: PostgreSQL, SQLite and MariaDB dialects, migrations and the transactional mode. */
module dev.idem.jdbc {
    requires transitive dev.idem.core;
    requires transitive java.sql;

    exports dev.idem.jdbc;
    exports dev.idem.inbox.consumer;
}
