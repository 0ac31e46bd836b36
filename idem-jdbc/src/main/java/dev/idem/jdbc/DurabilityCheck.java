package dev.idem.jdbc;

/**
 * What a JDBC component's {@code build()} does about database settings that can lose a write the
 * database acknowledged (see {@link JdbcComponentBuilder#durabilityCheck}). idem's promise rests on
 * the database keeping every claim and response it acknowledged: a lost claim lets its retry run the
 * effect again, a lost response lets the retry take over and repeat the interrupted phase.
 *
 * <p>The settings read fall in two kinds. <b>Node</b> settings can lose acknowledged writes on the
 * one server that took them, in a crash or a power failure: on PostgreSQL {@code fsync},
 * {@code synchronous_commit} and {@code full_page_writes}; on MariaDB
 * {@code innodb_flush_log_at_trx_commit}, {@code sync_binlog} (with the binary log on) and
 * {@code innodb_doublewrite}. <b>Replication</b> settings lose acknowledged writes only when a
 * standby is promoted: a primary with standbys of which none is synchronous (PostgreSQL
 * {@code synchronous_standby_names} with {@code synchronous_commit} {@code on}, {@code remote_write}
 * or {@code remote_apply}; MariaDB semi-synchronous replication). SQLite is always checked for WAL
 * and {@code synchronous=FULL}, whatever the policy.
 */
public enum DurabilityCheck {
    /**
     * The default. Refuses a database whose node settings can lose acknowledged writes, and logs a
     * warning (logger {@code dev.idem.jdbc.durability}) for a primary whose standbys are all
     * asynchronous: the first is a misconfiguration on any deployment, the second is a trade-off
     * that many run knowingly, and it loses writes only on a failover.
     */
    REQUIRE_DURABLE,

    /**
     * Refuses both kinds: for a team that fails over automatically and wants a failover never to
     * forget a claim. A primary without standbys passes (there is nothing to fail over to).
     */
    REQUIRE_SYNCHRONOUS_REPLICATION,

    /** Logs every finding as a warning and refuses nothing. */
    WARN,

    /** Reads nothing. For a database whose settings are known, or a throwaway test server. */
    SKIP
}
