package dev.idem.jdbc;

import dev.idem.IdempotencyKey;
import dev.idem.Scope;
import dev.idem.jdbc.internal.ServerDurability;
import dev.idem.jdbc.support.SqlStatements;
import dev.idem.jdbc.support.StoreCalls;
import dev.idem.jdbc.support.Tables;
import dev.idem.spi.Arguments;
import dev.idem.spi.RecordKey;
import dev.idem.spi.RecordState;
import dev.idem.spi.RecordSummary;
import dev.idem.spi.StoreAdministration;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;

/**
 * {@link StoreAdministration} of a {@link JdbcIdempotencyStore}: the statements of
 * {@code dev/idem/jdbc/common/admin.sql} on the store's table, each on a connection of its own.
 * Reads never select a body, headers or fingerprint; the release is one conditional {@code UPDATE}.
 */
final class JdbcStoreAdministration implements StoreAdministration {
    private static final List<String> STATEMENTS = List.of("admin_inspect", "admin_expired_leases", "admin_oldest_in_progress", "admin_release");

    private final StoreCalls calls;
    private final SqlStatements sql;

    JdbcStoreAdministration(Dialect dialect, String tableName, StoreCalls calls) {
        this.calls = calls;
        this.sql = SqlStatements.load(dialect, SqlStatements.Source.of(Dialect.class), "admin.sql",
                Map.of(Tables.DEFAULT_RECORD_TABLE, tableName), STATEMENTS);
    }

    @Override
    public Optional<RecordSummary> inspect(RecordKey id) {
        Objects.requireNonNull(id, "id is null");
        return calls.onConnection("inspect", id.scope(), c -> inspect(c, id));
    }

    private Optional<RecordSummary> inspect(Connection c, RecordKey id) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql.get("admin_inspect"))) {
            ps.setString(1, id.scope().value());
            ps.setString(2, id.key().value());
            List<RecordSummary> rows = summaries(ps);
            return rows.isEmpty() ? Optional.empty() : Optional.of(rows.get(0));
        }
    }

    @Override
    public List<RecordSummary> expiredLeases(int limit) {
        Arguments.between("limit", limit, 1, MAX_LIST);
        return calls.onConnection("list expired leases", c -> {
            try (PreparedStatement ps = c.prepareStatement(sql.get("admin_expired_leases"))) {
                ps.setInt(1, limit);
                return summaries(ps);
            }
        });
    }

    @Override
    public Optional<RecordSummary> oldestInProgress() {
        return calls.onConnection("find the oldest in progress", c -> {
            try (PreparedStatement ps = c.prepareStatement(sql.get("admin_oldest_in_progress"))) {
                List<RecordSummary> rows = summaries(ps);
                return rows.isEmpty() ? Optional.<RecordSummary>empty() : Optional.of(rows.get(0));
            }
        });
    }

    @Override
    public ReleaseResult releaseStuck(RecordKey id, long token, boolean force) {
        Objects.requireNonNull(id, "id is null");
        return calls.onConnection("release a stuck record", id.scope(), c -> {
            try (PreparedStatement ps = c.prepareStatement(sql.get("admin_release"))) {
                ps.setString(1, id.scope().value());
                ps.setString(2, id.key().value());
                ps.setLong(3, token);
                ps.setInt(4, force ? 1 : 0);
                if (ps.executeUpdate() > 0) {
                    return ReleaseResult.RELEASED;
                }
            }
            // Nothing matched: say why, from the record as it stands now.
            Optional<RecordSummary> now = inspect(c, id);
            if (now.isEmpty() || now.get().state() != RecordState.IN_PROGRESS) {
                return ReleaseResult.NOT_IN_PROGRESS;
            }
            return now.get().token() != token ? ReleaseResult.TOKEN_CHANGED : ReleaseResult.LEASE_LIVE;
        });
    }

    List<String> durabilityFindings() {
        return calls.onConnection("read durability settings", c -> ServerDurability.findings(c).stream()
                .map(f -> (f.failoverOnly() ? "failover: " : "") + f.text()).toList());
    }

    private static List<RecordSummary> summaries(PreparedStatement ps) throws SQLException {
        List<RecordSummary> out = new ArrayList<>();
        try (ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                out.add(summary(rs));
            }
        }
        return out;
    }

    private static RecordSummary summary(ResultSet rs) throws SQLException {
        RecordKey id = new RecordKey(Scope.parse(rs.getString("scope")), IdempotencyKey.of(rs.getString("idem_key")));
        boolean completed = rs.getInt("state") == 1;
        int status = rs.getInt("status");
        OptionalInt responseStatus = completed && !rs.wasNull() ? OptionalInt.of(status) : OptionalInt.empty();
        long bytes = rs.getLong("body_bytes");
        OptionalLong responseBytes = completed ? OptionalLong.of(rs.wasNull() ? 0 : bytes) : OptionalLong.empty();
        long created = rs.getLong("created_at");
        Instant createdAt = rs.wasNull() ? null : Instant.ofEpochMilli(created);
        return RecordSummary.of(id, completed ? RecordState.COMPLETED : RecordState.IN_PROGRESS, rs.getLong("token"), rs.getInt("attempt"),
                Instant.ofEpochMilli(rs.getLong("lease_until")), createdAt,
                Instant.ofEpochMilli(rs.getLong("expires_at")),
                ClaimRows.recoveryPoint(rs.getString("recovery_phase"), rs.getBytes("recovery_state")),
                responseStatus, responseBytes, Instant.ofEpochMilli(rs.getLong("now_ms")));
    }
}
