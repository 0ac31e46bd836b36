package dev.idem.jdbc.internal;

import dev.idem.jdbc.DurabilityCheck;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Reads the database settings that decide whether an acknowledged write survives a crash or a
 * failover, and acts on them as a {@link DurabilityCheck} says. The one place every JDBC component's
 * builder runs this check.
 */
public final class ServerDurability {
    private static final System.Logger LOG = System.getLogger("dev.idem.jdbc.durability");
    /** Why any of it matters, said once per message. */
    static final String WHY = "a lost claim lets its retry run the effect again, and a lost response lets the retry take over"
            + " and repeat the interrupted phase";

    private ServerDurability() {
    }

    /**
     * A setting that can lose acknowledged writes.
     *
     * @param failoverOnly true if writes are lost only when a standby is promoted, false if the one
     *                     server that acknowledged them can lose them
     * @param text         which setting, its value, what it loses and how to fix it
     */
    public record Finding(boolean failoverOnly, String text) {
    }

    /**
     * Checks the database {@code c} is connected to as {@code policy} says: refuses with an
     * {@link IllegalStateException}, or logs a warning, for each finding.
     *
     * @param component how the message names the component, e.g. "PostgreSQL store"
     */
    public static void check(Connection c, DurabilityCheck policy, String component) throws SQLException {
        if (policy == DurabilityCheck.SKIP) {
            return;
        }
        List<String> refused = new ArrayList<>();
        for (Finding finding : findings(c)) {
            boolean refuse = policy == DurabilityCheck.REQUIRE_SYNCHRONOUS_REPLICATION
                    || policy == DurabilityCheck.REQUIRE_DURABLE && !finding.failoverOnly();
            if (refuse) {
                refused.add(finding.text());
            } else {
                LOG.log(System.Logger.Level.WARNING, component + ": " + finding.text() + "; " + WHY
                        + " (durabilityCheck " + policy + " lets this start)");
            }
        }
        if (!refused.isEmpty()) {
            throw new IllegalStateException(component + ": the database can lose writes it acknowledged, and idem's records"
                    + " with them: " + String.join("; ", refused) + ". This matters because " + WHY + ". Change the setting"
                    + (refused.size() == 1 ? "" : "s") + " as described, or build with durabilityCheck(DurabilityCheck.WARN)"
                    + " to start anyway with a warning (idem.durability-check=warn in the Spring Boot starter).");
        }
    }

    /**
     * What can lose acknowledged writes on the database {@code c} is connected to; empty if nothing.
     * Judged by the server's product name, not the builder's dialect: the settings are the server's
     * (SQLite's are checked by {@link Dialects}, other products are not read).
     */
    public static List<Finding> findings(Connection c) throws SQLException {
        String product = c.getMetaData().getDatabaseProductName().toLowerCase(Locale.ROOT);
        try (Statement st = c.createStatement()) {
            if (product.contains("postgresql")) {
                return postgres(st);
            }
            if (product.contains("mariadb")) {
                return mariadb(st);
            }
            return List.of();
        }
    }

    private static List<Finding> postgres(Statement st) throws SQLException {
        List<Finding> findings = new ArrayList<>();
        String fsync;
        String synchronousCommit;
        String fullPageWrites;
        String standbyNames;
        boolean standby;
        try (ResultSet rs = st.executeQuery("SELECT current_setting('fsync'), current_setting('synchronous_commit'),"
                + " current_setting('full_page_writes'), current_setting('synchronous_standby_names'), pg_is_in_recovery()")) {
            rs.next();
            fsync = lower(rs.getString(1));
            synchronousCommit = lower(rs.getString(2));
            fullPageWrites = lower(rs.getString(3));
            standbyNames = rs.getString(4).trim();
            standby = rs.getBoolean(5);
        }
        if (!"on".equals(fsync)) {
            findings.add(new Finding(false, "fsync is '" + fsync + "': PostgreSQL does not force its write-ahead log to disk,"
                    + " so an operating-system crash or power failure can lose (or corrupt) committed transactions;"
                    + " set fsync = on in postgresql.conf and reload"));
        }
        if ("off".equals(synchronousCommit)) {
            findings.add(new Finding(false, "synchronous_commit is 'off' for idem's sessions: a commit is acknowledged before"
                    + " its write-ahead log reaches disk, so a crash of the server loses the last acknowledged transactions"
                    + " (up to three times wal_writer_delay); set synchronous_commit = on (in postgresql.conf, or drop the"
                    + " ALTER DATABASE / ALTER ROLE / connection option that turns it off)"));
        }
        if (!"on".equals(fullPageWrites)) {
            findings.add(new Finding(false, "full_page_writes is '" + fullPageWrites + "': a page half written when the power"
                    + " fails cannot be repaired from the write-ahead log, so recovery can lose or corrupt committed rows;"
                    + " set full_page_writes = on in postgresql.conf and reload"));
        }
        if (!standby) {
            int standbys;
            int synchronous;
            int visible;
            try (ResultSet rs = st.executeQuery("SELECT count(*), count(*) FILTER (WHERE sync_state IN ('sync', 'quorum')),"
                    + " count(sync_state) FROM pg_stat_replication")) {
                rs.next();
                standbys = rs.getInt(1);
                synchronous = rs.getInt(2);
                visible = rs.getInt(3);
            }
            // Without pg_read_all_stats a role sees the standbys but not their sync_state: judge by the setting then.
            boolean anySynchronous = visible == standbys ? synchronous > 0 : !standbyNames.isEmpty();
            if (standbys > 0 && !anySynchronous) {
                findings.add(new Finding(true, "the primary streams to " + standbys + " standby(s) and none is synchronous"
                        + " (synchronous_standby_names is '" + standbyNames + "'): a commit is acknowledged before any standby"
                        + " has it, so a failover to a standby loses the last acknowledged transactions; name the standbys in"
                        + " synchronous_standby_names (e.g. 'ANY 1 (*)') with synchronous_commit on or remote_apply"));
            } else if (standbys > 0 && "local".equals(synchronousCommit)) {
                findings.add(new Finding(true, "synchronous_commit is 'local' for idem's sessions: commits do not wait for the"
                        + " synchronous standby, so a failover to it loses the last acknowledged transactions; set"
                        + " synchronous_commit = on or remote_apply"));
            }
        }
        return findings;
    }

    private static List<Finding> mariadb(Statement st) throws SQLException {
        List<Finding> findings = new ArrayList<>();
        Map<String, String> variables = pairs(st, "SHOW GLOBAL VARIABLES WHERE Variable_name IN ('innodb_flush_log_at_trx_commit',"
                + " 'log_bin', 'sync_binlog', 'innodb_doublewrite', 'rpl_semi_sync_master_enabled', 'read_only')");
        Map<String, String> status = pairs(st, "SHOW GLOBAL STATUS WHERE Variable_name = 'Rpl_semi_sync_master_status'");
        String flush = variables.getOrDefault("innodb_flush_log_at_trx_commit", "(not reported)");
        if (!"1".equals(flush) && !"3".equals(flush)) {
            findings.add(new Finding(false, "innodb_flush_log_at_trx_commit is " + flush + ": InnoDB acknowledges a commit before"
                    + " its redo log is on disk, so " + ("0".equals(flush) ? "a crash of the server" : "an operating-system crash"
                    + " or power failure") + " loses about the last second of acknowledged transactions; set"
                    + " innodb_flush_log_at_trx_commit = 1"));
        }
        String syncBinlog = variables.getOrDefault("sync_binlog", "(not reported)");
        if (on(variables.get("log_bin")) && !"1".equals(syncBinlog)) {
            findings.add(new Finding(false, "sync_binlog is " + syncBinlog + " with the binary log on: MariaDB recovers commits"
                    + " from the binary log, which is then not forced to disk at each commit, so an operating-system crash or"
                    + " power failure loses acknowledged transactions (and replicas may hold ones the primary forgot); set"
                    + " sync_binlog = 1"));
        }
        if (variables.containsKey("innodb_doublewrite") && !on(variables.get("innodb_doublewrite"))) {
            findings.add(new Finding(false, "innodb_doublewrite is OFF: a page half written when the power fails cannot be"
                    + " repaired, so recovery can lose or corrupt committed rows; set innodb_doublewrite = ON"));
        }
        if (!on(variables.get("read_only"))) {
            int replicas;
            try (ResultSet rs = st.executeQuery("SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE COMMAND LIKE 'Binlog Dump%'")) {
                rs.next();
                replicas = rs.getInt(1);
            }
            boolean semiSync = on(status.get("Rpl_semi_sync_master_status"));
            if (replicas > 0 && !semiSync) {
                boolean enabled = on(variables.get("rpl_semi_sync_master_enabled"));
                findings.add(new Finding(true, replicas + " replica(s) read this server's binary log and none acknowledges"
                        + " commits (" + (enabled ? "rpl_semi_sync_master_enabled is ON, but semi-synchronous replication fell"
                        + " back to asynchronous after rpl_semi_sync_master_timeout" : "rpl_semi_sync_master_enabled is OFF")
                        + "): a commit is acknowledged before any replica has it, so a failover to a replica loses the last"
                        + " acknowledged transactions; set rpl_semi_sync_master_enabled = ON here and"
                        + " rpl_semi_sync_slave_enabled = ON on the replicas"));
            }
        }
        return findings;
    }

    private static Map<String, String> pairs(Statement st, String sql) throws SQLException {
        Map<String, String> values = new HashMap<>();
        try (ResultSet rs = st.executeQuery(sql)) {
            while (rs.next()) {
                values.put(rs.getString(1), rs.getString(2));
            }
        }
        return values;
    }

    private static boolean on(String value) {
        return value != null && ("ON".equalsIgnoreCase(value) || "1".equals(value));
    }

    private static String lower(String value) {
        return value == null ? "(not reported)" : value.trim().toLowerCase(Locale.ROOT);
    }
}
