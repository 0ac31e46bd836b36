/** idem's JDBC store: PostgreSQL and SQLite dialects, migrations and the transactional mode. */
module dev.idem.jdbc {
    requires transitive dev.idem.core;
    requires transitive java.sql;

    exports dev.idem.jdbc;
}
