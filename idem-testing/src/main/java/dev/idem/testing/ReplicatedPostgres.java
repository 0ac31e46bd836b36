package dev.idem.testing;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * A PostgreSQL primary and a streaming standby on loopback, each a server process of its own with
 * its own free port and temporary data folder: {@code initdb} for the primary, {@code pg_basebackup -R}
 * for the standby, so the standby streams the primary's write-ahead log from its first commit.
 * Replication is {@linkplain Replication#SYNCHRONOUS synchronous} ({@code synchronous_standby_names = '*'},
 * {@code synchronous_commit = on}: a commit is acknowledged once the standby has flushed it) or
 * asynchronous. The caller closes it; a JVM exit stops whatever is left.
 *
 * <p>Needs PostgreSQL's server binaries ({@code initdb}, {@code pg_ctl}, {@code pg_basebackup}) in
 * {@code /usr/lib/postgresql/<version>/bin}, or in the folder {@code IDEM_PG_BIN} names. Run as
 * root, they run as the {@code postgres} OS user ({@code initdb} refuses root). Without them the
 * calling test is skipped, or fails when {@code IDEM_REQUIRE_SERVICES} is {@code all} or names
 * {@value #SERVICE} (see {@link RealServices#unavailable}).
 */
public final class ReplicatedPostgres implements AutoCloseable {
    /** The name {@code IDEM_REQUIRE_SERVICES} knows this service by. */
    public static final String SERVICE = "postgres-replica";
    private static final String USER = "postgres";
    private static final Duration TIMEOUT = Duration.ofSeconds(60);
    private static Path template;

    /** Whether a commit on the primary waits for the standby. */
    public enum Replication {
        /** {@code synchronous_standby_names = '*'}: acknowledged once the standby flushed it. */
        SYNCHRONOUS,
        /** {@code synchronous_standby_names = ''}: acknowledged at once; the standby follows when it can. */
        ASYNCHRONOUS
    }

    private final Path bin;
    private final Path dir;
    private final Server primary;
    private final Server standby;
    private final Thread stopAtExit;

    private record Server(String name, Path data, int port) {
        String url() {
            return "jdbc:postgresql://127.0.0.1:" + port + "/postgres?user=postgres&connectTimeout=5&socketTimeout=30";
        }
    }

    private ReplicatedPostgres(Path bin, Path dir, Server primary, Server standby) {
        this.bin = bin;
        this.dir = dir;
        this.primary = primary;
        this.standby = standby;
        this.stopAtExit = new Thread(this::stopServers, "idem-replicated-postgres-stop");
        Runtime.getRuntime().addShutdownHook(stopAtExit);
    }

    /**
     * Starts a primary and its standby, {@code replication} as said, and returns once the standby
     * streams. {@code settings} ({@code name = value}) are added to the primary's {@code postgresql.conf}.
     */
    public static ReplicatedPostgres start(Replication replication, String... settings) {
        Path bin = binaries();
        Path dir = LocalServer.folder("idem-pg-replica-", USER);
        Server primary = new Server("primary", dir.resolve("primary"), LocalServer.freePort());
        Server standby = new Server("standby", dir.resolve("standby"), LocalServer.freePort());
        ReplicatedPostgres servers = new ReplicatedPostgres(bin, dir, primary, standby);
        try {
            LocalServer.run(USER, servers.log(primary), TIMEOUT.toSeconds(), "cp", "-a", template(bin).toString(), primary.data().toString());
            List<String> options = new ArrayList<>(List.of("wal_level = replica", "max_wal_senders = 5", "max_connections = 60",
                    "shared_buffers = 16MB", "synchronous_standby_names = '" + (replication == Replication.SYNCHRONOUS ? "*" : "") + "'"));
            options.addAll(List.of(settings));
            // In postgresql.conf, not on the command line, so that ALTER SYSTEM (configurePrimary) can override them.
            Files.writeString(primary.data().resolve("postgresql.conf"), String.join("\n", options) + "\n", StandardOpenOption.APPEND);
            servers.startServer(primary, List.of());
            LocalServer.run(USER, servers.log(standby), TIMEOUT.toSeconds(), bin.resolve("pg_basebackup").toString(), "-h",
                    "127.0.0.1", "-p", Integer.toString(primary.port()), "-U", USER, "-D", standby.data().toString(), "-R",
                    "-X", "stream", "-c", "fast", "--no-sync");
            // Promoted, the standby has no standby of its own: a synchronous_standby_names copied from the primary would
            // make every commit wait forever.
            servers.startServer(standby, List.of("hot_standby=on", "synchronous_standby_names=''"));
            servers.awaitStreaming();
            return servers;
        } catch (RuntimeException | java.io.IOException e) {
            servers.close();
            throw e instanceof RuntimeException r ? r : new java.io.UncheckedIOException((java.io.IOException) e);
        }
    }

    /** The primary's JDBC URL (database {@code postgres}, user {@code postgres}). */
    public String primaryUrl() {
        return primary.url();
    }

    /** The standby's JDBC URL. */
    public String standbyUrl() {
        return standby.url();
    }

    /**
     * Both servers in one URL with {@code targetServerType=primary}: the driver connects to whichever
     * is the primary now, re-checking a host it found down or a standby after one second.
     */
    public String failoverUrl() {
        return "jdbc:postgresql://127.0.0.1:" + primary.port() + ",127.0.0.1:" + standby.port()
                + "/postgres?user=postgres&targetServerType=primary&hostRecheckSeconds=1&connectTimeout=2&socketTimeout=10";
    }

    /**
     * Switches replication without a restart ({@code synchronous_standby_names} on the primary) and
     * returns once the primary counts its standby as synchronous, or no longer does.
     */
    public void replication(Replication replication) {
        boolean synchronous = replication == Replication.SYNCHRONOUS;
        configurePrimary("synchronous_standby_names", synchronous ? "*" : "");
        awaitTrue(primary, "SELECT " + (synchronous ? "" : "NOT ") + "EXISTS (SELECT 1 FROM pg_stat_replication WHERE sync_state = 'sync')",
                "standby to become " + (synchronous ? "synchronous" : "asynchronous"));
    }

    /**
     * Sets a reloadable server setting on the primary ({@code ALTER SYSTEM}; {@code null} resets it
     * to its built-in default)
     * and returns once a new session sees the new value, e.g. {@code configurePrimary("fsync", "off")}.
     */
    public void configurePrimary(String name, String value) {
        if (!name.matches("[a-z_]+")) {
            throw new IllegalArgumentException("not a setting name: '" + name + "'");
        }
        String quoted = value == null ? null : "'" + value.replace("'", "''") + "'";
        execute(primary, value == null ? "ALTER SYSTEM RESET " + name : "ALTER SYSTEM SET " + name + " = " + quoted, "SELECT pg_reload_conf()");
        // pg_reload_conf() only signals the postmaster: sessions started before it handles the signal see the old value.
        awaitTrue(primary, "SELECT current_setting('" + name + "') = " + (value == null
                ? "(SELECT boot_val FROM pg_settings WHERE name = '" + name + "')" : quoted), "primary to apply " + name);
    }

    /** Waits until the standby has replayed everything the primary has written so far. */
    public void awaitStandbyCaughtUp() {
        String target = query(primary, "SELECT pg_current_wal_lsn()::text");
        awaitTrue(standby, "SELECT pg_last_wal_replay_lsn() >= '" + target + "'::pg_lsn", "standby to replay up to " + target);
    }

    /**
     * Makes the standby fall behind from now on, deterministically: it stops streaming (its
     * {@code primary_conninfo} is emptied and reloaded), so whatever the primary commits next
     * reaches it only if {@link #resumeStandby()} is called.
     */
    public void pauseStandby() {
        execute(standby, "ALTER SYSTEM SET primary_conninfo = ''", "SELECT pg_reload_conf()");
        awaitTrue(standby, "SELECT NOT EXISTS (SELECT 1 FROM pg_stat_wal_receiver)", "standby to stop streaming");
        awaitTrue(primary, "SELECT NOT EXISTS (SELECT 1 FROM pg_stat_replication)", "primary to see its standby gone");
    }

    /** Undoes {@link #pauseStandby()}. */
    public void resumeStandby() {
        execute(standby, "ALTER SYSTEM RESET primary_conninfo", "SELECT pg_reload_conf()");
        awaitStreaming();
    }

    /** Bytes of write-ahead log the primary has written that the standby has not received (flushed). */
    public long lagBytes() {
        String received = query(standby, "SELECT coalesce(pg_last_wal_receive_lsn(), pg_last_wal_replay_lsn())::text");
        return Long.parseLong(query(primary, "SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), '" + received + "')::bigint::text"));
    }

    /** SIGKILL to the primary's postmaster and every backend of it: a crash, nothing flushed or said. */
    public void killPrimary() {
        Path pidFile = primary.data().resolve("postmaster.pid");
        LocalServer.killTree(LocalServer.pid(pidFile));
        try {
            // Stale now: stopServers() must not signal whatever process gets this id next.
            Files.deleteIfExists(pidFile);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** Promotes the standby ({@code pg_ctl promote}) and returns once it accepts writes. */
    public void promoteStandby() {
        LocalServer.run(USER, log(standby), TIMEOUT.toSeconds(), bin.resolve("pg_ctl").toString(), "promote", "-w", "-D",
                standby.data().toString());
        awaitTrue(standby, "SELECT NOT pg_is_in_recovery()", "standby to leave recovery");
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

    private void stopServers() {
        for (Server server : List.of(primary, standby)) {
            Path pidFile = server.data().resolve("postmaster.pid");
            if (Files.exists(pidFile)) {
                LocalServer.killTree(LocalServer.pid(pidFile));
            }
        }
        LocalServer.deleteTree(dir);
    }

    private void startServer(Server server, List<String> settings) {
        List<String> options = new ArrayList<>(List.of("port=" + server.port(), "listen_addresses=127.0.0.1",
                "unix_socket_directories=" + dir, "cluster_name=" + server.name()));
        options.addAll(settings);
        StringBuilder joined = new StringBuilder();
        options.forEach(o -> joined.append(" -c ").append(o));
        LocalServer.run(USER, log(server), TIMEOUT.toSeconds(), bin.resolve("pg_ctl").toString(), "start", "-w", "-D",
                server.data().toString(), "-l", dir.resolve(server.name() + "-server.log").toString(), "-o", joined.toString());
    }

    private void awaitStreaming() {
        // A streaming standby counts as synchronous only once it has reported a flush position: until then its
        // sync_state is 'async', and a store built in that moment finds no synchronous standby.
        awaitTrue(primary, "SELECT EXISTS (SELECT 1 FROM pg_stat_replication WHERE state = 'streaming'"
                + " AND (current_setting('synchronous_standby_names') = '' OR sync_state IN ('sync', 'quorum')))",
                "standby to stream (and to count as synchronous when it is named)");
    }

    private Path log(Server server) {
        return dir.resolve(server.name() + "-commands.log");
    }

    private void execute(Server server, String... statements) {
        try (Connection c = DriverManager.getConnection(server.url()); Statement st = c.createStatement()) {
            for (String sql : statements) {
                st.execute(sql);
            }
        } catch (SQLException e) {
            throw new IllegalStateException("PostgreSQL " + server.name() + " refused " + String.join("; ", statements), e);
        }
    }

    private String query(Server server, String sql) {
        try (Connection c = DriverManager.getConnection(server.url()); Statement st = c.createStatement(); ResultSet rs = st.executeQuery(sql)) {
            rs.next();
            return rs.getString(1);
        } catch (SQLException e) {
            throw new IllegalStateException("PostgreSQL " + server.name() + " refused " + sql, e);
        }
    }

    private void awaitTrue(Server server, String sql, String what) {
        long deadline = System.nanoTime() + TIMEOUT.toNanos();
        while (true) {
            try {
                if ("t".equals(query(server, sql))) {
                    return;
                }
            } catch (IllegalStateException e) {
                // Not up yet, or restarting: ask again.
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("timed out waiting for the " + what + ":\n"
                        + LocalServer.tail(dir.resolve(server.name() + "-server.log")));
            }
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted waiting for the " + what, e);
            }
        }
    }

    /** One {@code initdb} per JVM (the slowest step, seconds on a busy machine), copied for each primary; deleted at exit. */
    private static synchronized Path template(Path bin) {
        if (template == null) {
            Path dir = LocalServer.folder("idem-pg-template-", USER);
            LocalServer.run(USER, dir.resolve("initdb.log"), TIMEOUT.toSeconds(), bin.resolve("initdb").toString(), "-D",
                    dir.resolve("data").toString(), "-U", USER, "-A", "trust", "-E", "UTF8", "--no-sync", "--no-instructions");
            Runtime.getRuntime().addShutdownHook(new Thread(() -> LocalServer.deleteTree(dir), "idem-pg-template-delete"));
            template = dir.resolve("data");
        }
        return template;
    }

    /**
     * Why a pair cannot start on this machine (no server binaries found), or empty if it can: for a
     * caller outside a test (the lab), which says so instead of being skipped as a test would.
     */
    public static Optional<String> unavailableReason() {
        return findBinaries().isPresent() ? Optional.empty() : Optional.of(MISSING);
    }

    private static final String MISSING = "a primary and a standby need PostgreSQL's initdb, pg_ctl and pg_basebackup, found"
            + " neither in IDEM_PG_BIN nor in /usr/lib/postgresql/<version>/bin";

    private static Path binaries() {
        Optional<Path> bin = findBinaries();
        if (bin.isEmpty()) {
            RealServices.unavailable(SERVICE, MISSING);
            throw new AssertionError("unreachable");
        }
        return bin.get();
    }

    private static Optional<Path> findBinaries() {
        String configured = System.getenv("IDEM_PG_BIN");
        List<String> candidates = new ArrayList<>();
        if (configured != null && !configured.isBlank()) {
            candidates.add(configured);
        }
        try (var versions = Files.list(Path.of("/usr/lib/postgresql"))) {
            // Newest major version first: 15 before 9.6.
            versions.filter(v -> v.getFileName().toString().matches("\\d+(\\.\\d+)?"))
                    .sorted(Comparator.comparingDouble((Path v) -> Double.parseDouble(v.getFileName().toString())).reversed())
                    .forEach(v -> candidates.add(v.resolve("bin").toString()));
        } catch (java.io.IOException e) {
            // No packaged PostgreSQL: only IDEM_PG_BIN can help.
        }
        return candidates.stream().map(Path::of)
                .filter(p -> Files.isExecutable(p.resolve("initdb")) && Files.isExecutable(p.resolve("pg_basebackup"))).findFirst();
    }
}
