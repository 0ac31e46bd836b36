package dev.idem.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.jdbc.testing.UrlDataSource;
import dev.idem.testing.RealServices;
import dev.idem.testing.ReplicatedMariadb;
import dev.idem.testing.ReplicatedPostgres;
import dev.idem.testing.ReplicatedPostgres.Replication;
import dev.idem.testing.TestDatabase;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * build() reads the database's durability settings and refuses (or warns about) each that can lose
 * an acknowledged write: per session on the machine's PostgreSQL, and on servers of the test's own
 * (ReplicatedPostgres, ReplicatedMariadb) for server-wide settings, so no shared server's global
 * setting ever changes.
 */
class DurabilityCheckTest {
    private final List<String> warnings = new CopyOnWriteArrayList<>();
    private final Logger logger = Logger.getLogger("dev.idem.jdbc.durability");
    private final Handler capture = new Handler() {
        @Override
        public void publish(LogRecord record) {
            if (record.getLevel().intValue() >= Level.WARNING.intValue()) {
                warnings.add(record.getMessage());
            }
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
        }
    };

    @BeforeEach
    void captureWarnings() {
        logger.addHandler(capture);
    }

    @AfterEach
    void stopCapturing() {
        logger.removeHandler(capture);
    }

    @Test
    @DisplayName("the machine's PostgreSQL passes; synchronous_commit=off on idem's sessions is refused, or only warned about under WARN")
    void postgresSessionSynchronousCommitOff() {
        try (TestDatabase safe = RealServices.postgres(); TestDatabase unsafe = RealServices.postgresWithSessionSettings("synchronous_commit=off")) {
            assertThat(JdbcIdempotencyStore.builder(safe.dataSource()).build().dialect()).isEqualTo(Dialect.POSTGRESQL);
            assertThat(warnings).isEmpty();

            DataSource off = unsafe.dataSource();
            assertThatThrownBy(() -> JdbcIdempotencyStore.builder(off).build())
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageStartingWith("JDBC store: the database can lose writes it acknowledged")
                    .hasMessageContaining("synchronous_commit is 'off' for idem's sessions")
                    .hasMessageContaining("a crash of the server loses the last acknowledged transactions")
                    .hasMessageContaining("set synchronous_commit = on")
                    .hasMessageContaining("a lost claim lets its retry run the effect again")
                    .hasMessageContaining("a lost response lets the retry take over and repeat the interrupted phase")
                    .hasMessageContaining("durabilityCheck(DurabilityCheck.WARN)");

            JdbcIdempotencyStore.builder(off).durabilityCheck(DurabilityCheck.WARN).build();
            assertThat(warnings).singleElement().asString().contains("synchronous_commit is 'off'", "durabilityCheck WARN lets this start");
            warnings.clear();
            JdbcIdempotencyStore.builder(off).durabilityCheck(DurabilityCheck.SKIP).build();
            assertThat(warnings).isEmpty();
        }
    }

    @Test
    @DisplayName("a private PostgreSQL pair: an asynchronous standby is warned about (refused under REQUIRE_SYNCHRONOUS_REPLICATION);"
            + " fsync, full_page_writes and synchronous_commit=local are each named")
    void postgresServerSettingsAndStandbys() {
        try (ReplicatedPostgres pg = ReplicatedPostgres.start(Replication.ASYNCHRONOUS)) {
            DataSource primary = postgres(pg.primaryUrl());
            JdbcIdempotencyStore.builder(primary).build();
            assertThat(warnings).singleElement().asString()
                    .contains("the primary streams to 1 standby(s) and none is synchronous (synchronous_standby_names is '')",
                            "a failover to a standby loses the last acknowledged transactions",
                            "synchronous_standby_names (e.g. 'ANY 1 (*)') with synchronous_commit on or remote_apply",
                            "durabilityCheck REQUIRE_DURABLE lets this start");
            assertThatThrownBy(() -> JdbcIdempotencyStore.builder(primary).durabilityCheck(DurabilityCheck.REQUIRE_SYNCHRONOUS_REPLICATION).build())
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("none is synchronous");

            pg.replication(Replication.SYNCHRONOUS);
            warnings.clear();
            JdbcIdempotencyStore.builder(primary).durabilityCheck(DurabilityCheck.REQUIRE_SYNCHRONOUS_REPLICATION).build();
            assertThat(warnings).isEmpty();
            assertThatThrownBy(() -> JdbcIdempotencyStore.builder(postgres(withOption(pg.primaryUrl(), "synchronous_commit=local")))
                    .durabilityCheck(DurabilityCheck.REQUIRE_SYNCHRONOUS_REPLICATION).build())
                    .hasMessageContaining("synchronous_commit is 'local' for idem's sessions: commits do not wait for the synchronous standby")
                    .hasMessageContaining("set synchronous_commit = on or remote_apply");

            pg.configurePrimary("fsync", "off");
            assertThatThrownBy(() -> JdbcIdempotencyStore.builder(primary).build())
                    .hasMessageContaining("fsync is 'off': PostgreSQL does not force its write-ahead log to disk")
                    .hasMessageContaining("set fsync = on in postgresql.conf and reload");
            pg.configurePrimary("fsync", null);
            pg.configurePrimary("full_page_writes", "off");
            assertThatThrownBy(() -> JdbcIdempotencyStore.builder(primary).build())
                    .hasMessageContaining("full_page_writes is 'off': a page half written when the power fails")
                    .hasMessageContaining("set full_page_writes = on")
                    .message().doesNotContain("fsync is");
            // A standby's own settings count too, but it has no standbys of its own to judge.
            warnings.clear();
            JdbcIdempotencyStore.builder(postgres(pg.standbyUrl())).build();
            assertThat(warnings).isEmpty();
        }
    }

    @Test
    @DisplayName("a private MariaDB pair: innodb_flush_log_at_trx_commit 0 and 2, sync_binlog 0, innodb_doublewrite OFF and an"
            + " asynchronous replica are each named")
    void mariadbSettingsAndReplicas() {
        try (ReplicatedMariadb maria = ReplicatedMariadb.start(ReplicatedMariadb.Replication.ASYNCHRONOUS, "--innodb-doublewrite=0")) {
            maria.executeOnPrimary("CREATE DATABASE idem");
            DataSource primary = new UrlDataSource(maria.primaryUrl("idem"));
            assertThatThrownBy(() -> JdbcIdempotencyStore.builder(primary).build())
                    .hasMessageContaining("innodb_doublewrite is OFF: a page half written when the power fails cannot be repaired")
                    .hasMessageContaining("set innodb_doublewrite = ON")
                    .message().doesNotContain("replica(s)");
            JdbcIdempotencyStore.builder(primary).durabilityCheck(DurabilityCheck.WARN).build();
            assertThat(warnings).anySatisfy(w -> assertThat(w).contains("1 replica(s) read this server's binary log and none"
                    + " acknowledges commits (rpl_semi_sync_master_enabled is OFF)", "a failover to a replica loses the last acknowledged"
                    + " transactions", "set rpl_semi_sync_master_enabled = ON here and rpl_semi_sync_slave_enabled = ON on the replicas"));
            assertThatThrownBy(() -> JdbcIdempotencyStore.builder(primary).durabilityCheck(DurabilityCheck.REQUIRE_SYNCHRONOUS_REPLICATION).build())
                    .hasMessageContaining("1 replica(s) read this server's binary log");

            try {
                maria.executeOnPrimary("SET GLOBAL innodb_flush_log_at_trx_commit = 2");
                assertThatThrownBy(() -> JdbcIdempotencyStore.builder(primary).build())
                        .hasMessageContaining("innodb_flush_log_at_trx_commit is 2: InnoDB acknowledges a commit before its redo log is on disk,"
                                + " so an operating-system crash or power failure loses about the last second")
                        .hasMessageContaining("set innodb_flush_log_at_trx_commit = 1");
                maria.executeOnPrimary("SET GLOBAL innodb_flush_log_at_trx_commit = 0");
                assertThatThrownBy(() -> JdbcIdempotencyStore.builder(primary).build())
                        .hasMessageContaining("innodb_flush_log_at_trx_commit is 0: InnoDB acknowledges a commit before its redo log is on disk,"
                                + " so a crash of the server loses");
                maria.executeOnPrimary("SET GLOBAL innodb_flush_log_at_trx_commit = 1", "SET GLOBAL sync_binlog = 0");
                assertThatThrownBy(() -> JdbcIdempotencyStore.builder(primary).build())
                        .hasMessageContaining("sync_binlog is 0 with the binary log on: MariaDB recovers commits from the binary log")
                        .hasMessageContaining("set sync_binlog = 1")
                        .message().doesNotContain("innodb_flush_log_at_trx_commit is");
            } finally {
                maria.executeOnPrimary("SET GLOBAL innodb_flush_log_at_trx_commit = 1", "SET GLOBAL sync_binlog = 1");
            }
        }
    }

    private static DataSource postgres(String url) {
        return new UrlDataSource(url);
    }

    /** {@code url} with a server setting for every session it opens (a startup option: PostgreSQL applies it before any query). */
    private static String withOption(String url, String setting) {
        return url + (url.contains("?") ? "&" : "?") + "options=" + URLEncoder.encode("-c " + setting, StandardCharsets.UTF_8);
    }
}
