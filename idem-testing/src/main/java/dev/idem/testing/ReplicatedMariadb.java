package dev.idem.testing;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * A MariaDB primary and a replica on loopback, each a {@code mariadbd} of its own (own
 * {@code --datadir}, {@code --port}, {@code --socket}), from one {@code mariadb-install-db} per JVM, copied
 * for each before either starts, so the replica follows the primary by GTID from its first transaction.
 * Replication is semi-synchronous ({@code rpl_semi_sync_master_enabled} with wait point
 * {@code AFTER_SYNC}: a commit is acknowledged once the replica has it in its relay log) or
 * asynchronous. The binary log is on with {@code sync_binlog = 1} and
 * {@code innodb_flush_log_at_trx_commit = 1}. The replica runs {@code read_only}, which does not hold
 * root (its {@code READ ONLY ADMIN} privilege writes through it): the application's URLs connect as
 * {@value #APPLICATION_USER}, an ordinary user (data privileges and {@code PROCESS}), as a real
 * application does, so a write that reaches the replica before its promotion is refused instead of
 * landing beside the relay log it has not applied yet. The caller closes it; a JVM exit stops
 * whatever is left.
 *
 * <p>Needs {@code mariadbd} and {@code mariadb-install-db} (10.6 or later; semi-sync is built in from
 * 10.3). Run as root, they run as the {@code mysql} OS user. Without them the calling test is
 * skipped, or fails when {@code IDEM_REQUIRE_SERVICES} is {@code all} or names {@value #SERVICE}.
 * JDBC calls need MariaDB Connector/J on the class path, which the module under test brings.
 */
public final class ReplicatedMariadb implements AutoCloseable {
    /** The name {@code IDEM_REQUIRE_SERVICES} knows this service by. */
    public static final String SERVICE = "mariadb-replica";
    /** The user the application's URLs connect as: no privilege that writes through {@code read_only}. */
    public static final String APPLICATION_USER = "idem_app";
    private static final String USER = "mysql";
    private static final Duration TIMEOUT = Duration.ofSeconds(60);
    /** How long the primary waits for a replica's acknowledgement before it falls back to asynchronous. */
    private static final int SEMI_SYNC_TIMEOUT_MILLIS = 10_000;
    private static Path template;

    /** Whether a commit on the primary waits for the replica. */
    public enum Replication {
        /** Semi-synchronous, wait point {@code AFTER_SYNC}: acknowledged once the replica has the transaction. */
        SEMI_SYNCHRONOUS,
        /** Acknowledged at once; the replica follows when it can. */
        ASYNCHRONOUS
    }

    private final Path server;
    private final Path dir;
    private final Node primary;
    private final Node replica;
    private final List<Process> processes = new ArrayList<>();
    private final Thread stopAtExit;

    private record Node(String name, int port, int serverId) {
        String url(String database) {
            return url(database, "root");
        }

        String url(String database, String user) {
            return "jdbc:mariadb://127.0.0.1:" + port + "/" + database + "?user=" + user + "&connectTimeout=5000&socketTimeout=30000";
        }
    }

    private ReplicatedMariadb(Path server, Path dir, Node primary, Node replica) {
        this.server = server;
        this.dir = dir;
        this.primary = primary;
        this.replica = replica;
        this.stopAtExit = new Thread(this::stopServers, "idem-replicated-mariadb-stop");
        Runtime.getRuntime().addShutdownHook(stopAtExit);
    }

    /**
     * Starts a primary and its replica, {@code replication} as said, and returns once the replica
     * follows. {@code primarySettings} (e.g. {@code --innodb-doublewrite=0}) go to the primary's command line.
     */
    public static ReplicatedMariadb start(Replication replication, String... primarySettings) {
        Optional<Path> server = LocalServer.binary("/usr/sbin/mariadbd", "/usr/bin/mariadbd", "/usr/local/bin/mariadbd");
        Optional<Path> install = LocalServer.binary("/usr/bin/mariadb-install-db", "/usr/local/bin/mariadb-install-db");
        if (server.isEmpty() || install.isEmpty()) {
            RealServices.unavailable(SERVICE, "a primary and a replica need mariadbd and mariadb-install-db, and "
                    + (server.isEmpty() ? "mariadbd" : "mariadb-install-db") + " is not installed");
            throw new AssertionError("unreachable");
        }
        Path dir = LocalServer.folder("idem-mariadb-replica-", USER);
        ReplicatedMariadb servers = new ReplicatedMariadb(server.get(), dir, new Node("primary", LocalServer.freePort(), 1),
                new Node("replica", LocalServer.freePort(), 2));
        try {
            Path log = dir.resolve("commands.log");
            Path template = template(install.get());
            LocalServer.run(USER, log, TIMEOUT.toSeconds(), "cp", "-a", template.toString(), dir.resolve("primary").toString());
            LocalServer.run(USER, log, TIMEOUT.toSeconds(), "cp", "-a", template.toString(), dir.resolve("replica").toString());
            boolean semi = replication == Replication.SEMI_SYNCHRONOUS;
            List<String> settings = new ArrayList<>(List.of("--rpl-semi-sync-master-enabled=" + (semi ? 1 : 0),
                    "--rpl-semi-sync-master-wait-point=AFTER_SYNC", "--rpl-semi-sync-master-timeout=" + SEMI_SYNC_TIMEOUT_MILLIS));
            settings.addAll(List.of(primarySettings));
            servers.startServer(servers.primary, settings.toArray(new String[0]));
            servers.startServer(servers.replica, "--rpl-semi-sync-slave-enabled=" + (semi ? 1 : 0), "--read-only=1");
            servers.execute(servers.replica, "CHANGE MASTER TO MASTER_HOST = '127.0.0.1', MASTER_PORT = " + servers.primary.port()
                    + ", MASTER_USER = 'root', MASTER_USE_GTID = slave_pos, MASTER_CONNECT_RETRY = 1", "START SLAVE");
            servers.awaitFollowing(semi);
            // Created on the primary, so the replica gets the user by replication, as it gets everything else.
            servers.execute(servers.primary, "CREATE USER '" + APPLICATION_USER + "'@'%'",
                    "GRANT SELECT, INSERT, UPDATE, DELETE, CREATE, DROP, ALTER, INDEX, REFERENCES, CREATE TEMPORARY TABLES,"
                            + " LOCK TABLES, PROCESS ON *.* TO '" + APPLICATION_USER + "'@'%'");
            servers.awaitReplicaCaughtUp();
            return servers;
        } catch (RuntimeException e) {
            servers.close();
            throw e;
        }
    }

    /** The primary's JDBC URL for {@code database} (user root, no password). */
    public String primaryUrl(String database) {
        return primary.url(database);
    }

    /** The replica's JDBC URL for {@code database}. */
    public String replicaUrl(String database) {
        return replica.url(database);
    }

    /** The replica's JDBC URL for {@code database} as {@value #APPLICATION_USER}: refused writes until promoted. */
    public String replicaApplicationUrl(String database) {
        return replica.url(database, APPLICATION_USER);
    }

    /**
     * Both servers in one Connector/J {@code sequential} URL, as {@value #APPLICATION_USER}: a new
     * connection goes to the first server that answers, the primary while it lives, then the replica
     * (which refuses writes until {@link #promoteReplica()}).
     */
    public String failoverUrl(String database) {
        return "jdbc:mariadb:sequential://127.0.0.1:" + primary.port() + ",127.0.0.1:" + replica.port() + "/" + database
                + "?user=" + APPLICATION_USER + "&connectTimeout=2000&socketTimeout=10000&retriesAllDown=3";
    }

    /** Runs {@code statements} on the primary as root (e.g. CREATE DATABASE, SET GLOBAL: the server is ours alone). */
    public void executeOnPrimary(String... statements) {
        execute(primary, statements);
    }

    /** Waits until the replica has applied every transaction the primary has committed so far. */
    public void awaitReplicaCaughtUp() {
        String position = query(primary, "SELECT @@gtid_binlog_pos");
        if (!"0".equals(query(replica, "SELECT MASTER_GTID_WAIT('" + position + "', " + TIMEOUT.toSeconds() + ")"))) {
            throw new IllegalStateException("the replica did not reach the primary's GTID position " + position);
        }
    }

    /**
     * Makes the replica fall behind from now on, deterministically: {@code STOP SLAVE}, so whatever
     * the primary commits next reaches it only if {@link #resumeReplica()} is called.
     */
    public void pauseReplica() {
        execute(replica, "STOP SLAVE");
    }

    /** Undoes {@link #pauseReplica()}. */
    public void resumeReplica() {
        execute(replica, "START SLAVE");
    }

    /** Transactions the primary has committed that the replica has not received: the GTID sequence numbers apart. */
    public long lagTransactions() {
        return sequence(query(primary, "SELECT @@gtid_binlog_pos")) - sequence(query(replica, "SELECT @@gtid_slave_pos"));
    }

    /** SIGKILL to the primary's {@code mariadbd}: a crash, nothing flushed or said. */
    public void killPrimary() {
        LocalServer.killTree(LocalServer.pid(dir.resolve("primary.pid")));
    }

    /**
     * Makes the replica the primary: applies what it received (its relay log), stops replicating and
     * accepts writes ({@code read_only = 0}). What a failover manager (MaxScale, Orchestrator) does.
     */
    public void promoteReplica() {
        long deadline = System.nanoTime() + TIMEOUT.toNanos();
        // The relay log holds every transaction the replica acknowledged; wait until the SQL thread has applied all of it.
        while (!query(replica, "SELECT COUNT(*) = 0 FROM information_schema.PROCESSLIST WHERE COMMAND = 'Slave_SQL'"
                + " AND STATE NOT LIKE 'Slave has read all relay log%'").equals("1")) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("the replica did not apply its relay log within " + TIMEOUT.toSeconds() + " s");
            }
            pause();
        }
        execute(replica, "STOP SLAVE", "RESET SLAVE ALL", "SET GLOBAL read_only = 0");
    }

    /** Stops both servers and deletes their folders. */
    @Override
    public void close() {
        stopServers();
        try {
            Runtime.getRuntime().removeShutdownHook(stopAtExit);
        } catch (IllegalStateException e) {
            // The JVM is exiting: the hook runs anyway.
        }
    }

    private synchronized void stopServers() {
        for (Process process : processes) {
            LocalServer.killTree(process.pid());
        }
        processes.clear();
        LocalServer.deleteTree(dir);
    }

    private void startServer(Node node, String... settings) {
        List<String> command = new ArrayList<>(List.of(server.toString(), "--no-defaults", "--datadir=" + dir.resolve(node.name()),
                "--port=" + node.port(), "--bind-address=127.0.0.1", "--socket=" + dir.resolve(node.name() + ".sock"),
                "--pid-file=" + dir.resolve(node.name() + ".pid"), "--log-error=" + dir.resolve(node.name() + ".err"),
                "--server-id=" + node.serverId(), "--log-bin=" + node.name() + "-bin", "--log-basename=" + node.name(),
                "--gtid-strict-mode=1", "--sync-binlog=1", "--innodb-flush-log-at-trx-commit=1", "--skip-name-resolve",
                "--innodb-buffer-pool-size=32M", "--innodb-log-file-size=16M", "--max-connections=100"));
        command.addAll(List.of(settings));
        try {
            synchronized (this) {
                processes.add(LocalServer.as(USER, dir.resolve(node.name() + ".out"), command.toArray(new String[0])).start());
            }
        } catch (java.io.IOException e) {
            throw new IllegalStateException("cannot start mariadbd", e);
        }
        long deadline = System.nanoTime() + TIMEOUT.toNanos();
        while (!RealServices.answers("127.0.0.1", node.port()) || !Files.exists(dir.resolve(node.name() + ".pid"))) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("mariadbd " + node.name() + " did not start:\n" + LocalServer.tail(dir.resolve(node.name() + ".err")));
            }
            pause();
        }
    }

    private void awaitFollowing(boolean semi) {
        long deadline = System.nanoTime() + TIMEOUT.toNanos();
        String ready = semi ? "SELECT VARIABLE_VALUE = 'ON' FROM information_schema.GLOBAL_STATUS WHERE VARIABLE_NAME = 'RPL_SEMI_SYNC_MASTER_STATUS'"
                + " AND (SELECT VARIABLE_VALUE FROM information_schema.GLOBAL_STATUS WHERE VARIABLE_NAME = 'RPL_SEMI_SYNC_MASTER_CLIENTS') > 0"
                : "SELECT COUNT(*) > 0 FROM information_schema.PROCESSLIST WHERE COMMAND LIKE 'Binlog Dump%'";
        while (!"1".equals(query(primary, ready))) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("the replica did not start following:\n" + LocalServer.tail(dir.resolve("replica.err")));
            }
            pause();
        }
    }

    /** One {@code mariadb-install-db} per JVM (seconds on a busy machine), copied for each server; deleted at exit. */
    private static synchronized Path template(Path install) {
        if (template == null) {
            Path dir = LocalServer.folder("idem-mariadb-template-", USER);
            LocalServer.run(USER, dir.resolve("install.log"), TIMEOUT.toSeconds(), install.toString(), "--no-defaults",
                    "--datadir=" + dir.resolve("data"), "--auth-root-authentication-method=normal", "--skip-test-db", "--skip-name-resolve");
            Runtime.getRuntime().addShutdownHook(new Thread(() -> LocalServer.deleteTree(dir), "idem-mariadb-template-delete"));
            template = dir.resolve("data");
        }
        return template;
    }

    private static long sequence(String gtidPosition) {
        // "domain-server-sequence"; one domain here. Empty before the first transaction.
        return gtidPosition == null || gtidPosition.isBlank() ? 0 : Long.parseLong(gtidPosition.substring(gtidPosition.lastIndexOf('-') + 1));
    }

    private void execute(Node node, String... statements) {
        try (Connection c = DriverManager.getConnection(node.url("")); Statement st = c.createStatement()) {
            for (String sql : statements) {
                st.execute(sql);
            }
        } catch (SQLException e) {
            throw new IllegalStateException("MariaDB " + node.name() + " refused " + String.join("; ", statements), e);
        }
    }

    private String query(Node node, String sql) {
        try (Connection c = DriverManager.getConnection(node.url("")); Statement st = c.createStatement(); ResultSet rs = st.executeQuery(sql)) {
            return rs.next() ? rs.getString(1) : null;
        } catch (SQLException e) {
            throw new IllegalStateException("MariaDB " + node.name() + " refused " + sql, e);
        }
    }

    private static void pause() {
        try {
            Thread.sleep(50);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }
}
