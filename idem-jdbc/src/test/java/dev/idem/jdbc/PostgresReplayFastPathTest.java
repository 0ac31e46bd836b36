package dev.idem.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.Fingerprint;
import dev.idem.IdempotencyKey;
import dev.idem.Scope;
import dev.idem.StoredResponse;
import dev.idem.jdbc.testing.Backends;
import dev.idem.spi.ClaimOutcome;
import dev.idem.spi.ClaimRequest;
import dev.idem.spi.RecordKey;
import dev.idem.testing.TestDatabase;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * PostgreSQL answers the claim of a completed key in the claim statement itself, as a pure read: it
 * neither locks nor writes the record (before, {@code ON CONFLICT DO UPDATE} locked the row, which
 * gave every replay a transaction id and a WAL flush, and made replays of one key queue).
 */
class PostgresReplayFastPathTest {
    private static final Scope SCOPE = Scope.of("alice", "POST /orders");
    private static final Fingerprint FP = Fingerprint.builder().part("body", "{}").build();
    private static final Duration LEASE = Duration.ofSeconds(30);
    private static final Duration RETENTION = Duration.ofHours(1);

    private TestDatabase db;
    private JdbcIdempotencyStore store;

    @BeforeEach
    void open() {
        db = Backends.POSTGRESQL.open();
        store = Backends.migratedStore(db);
    }

    @AfterEach
    void close() {
        db.close();
    }

    private RecordKey completed(String key, StoredResponse response) {
        RecordKey id = new RecordKey(SCOPE, IdempotencyKey.of(key));
        ClaimOutcome.Acquired acquired = (ClaimOutcome.Acquired) store.claim(new ClaimRequest(id, FP, LEASE, RETENTION));
        store.complete(id, acquired.token(), response, RETENTION);
        return id;
    }

    @Test
    void replayOfACompletedKeyNeitherLocksNorWritesTheRecord() throws Exception {
        StoredResponse response = StoredResponse.of(201, Map.of("Content-Type", List.of("application/json")),
                "{\"id\":7}".getBytes(StandardCharsets.UTF_8));
        RecordKey id = completed("k-1", response);
        try (Connection locker = db.dataSource().getConnection()) {
            locker.setAutoCommit(false);
            try (PreparedStatement ps = locker.prepareStatement("SELECT token FROM idem_record WHERE scope = ? AND idem_key = ? FOR UPDATE")) {
                ps.setString(1, SCOPE.value());
                ps.setString(2, "k-1");
                try (ResultSet rs = ps.executeQuery()) {
                    assertThat(rs.next()).isTrue();
                }
            }
            // A claim that locked the row would wait for the locker's transaction; this one must not.
            ClaimOutcome replay = CompletableFuture.supplyAsync(() -> store.claim(new ClaimRequest(id, FP, LEASE, RETENTION)))
                    .get(5, TimeUnit.SECONDS);
            assertThat(replay).isEqualTo(new ClaimOutcome.Replay(response));
            ClaimOutcome mismatch = CompletableFuture.supplyAsync(() -> store.claim(
                            new ClaimRequest(id, Fingerprint.builder().part("body", "other").build(), LEASE, RETENTION)))
                    .get(5, TimeUnit.SECONDS);
            assertThat(mismatch).isInstanceOf(ClaimOutcome.Mismatch.class);
            locker.rollback();
        }
        try (Connection c = db.dataSource().getConnection();
             PreparedStatement ps = c.prepareStatement("SELECT xmin::text, token FROM idem_record WHERE scope = ? AND idem_key = ?")) {
            ps.setString(1, SCOPE.value());
            ps.setString(2, "k-1");
            String before;
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                before = rs.getString(1);
            }
            assertThat(store.claim(new ClaimRequest(id, FP, LEASE, RETENTION))).isInstanceOf(ClaimOutcome.Replay.class);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                assertThat(rs.getString(1)).as("the replay wrote no new row version").isEqualTo(before);
            }
        }
    }

    @Test
    void anExpiredCompletedRecordIsNotReplayedButAcquiredAgain() throws Exception {
        RecordKey id = completed("k-2", StoredResponse.of(200, new byte[0]));
        try (Connection c = db.dataSource().getConnection();
             PreparedStatement ps = c.prepareStatement("UPDATE idem_record SET expires_at = expires_at - 7200000 WHERE idem_key = 'k-2'")) {
            assertThat(ps.executeUpdate()).isEqualTo(1);
        }
        ClaimOutcome again = store.claim(new ClaimRequest(id, FP, LEASE, RETENTION));
        assertThat(again).isInstanceOf(ClaimOutcome.Acquired.class);
        assertThat(((ClaimOutcome.Acquired) again).attempt()).isEqualTo(1);
    }
}
