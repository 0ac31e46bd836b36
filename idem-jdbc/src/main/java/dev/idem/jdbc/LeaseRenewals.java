package dev.idem.jdbc;

import dev.idem.jdbc.internal.ReservedConnection;
import dev.idem.jdbc.support.SqlStatements;
import dev.idem.spi.HeldLease;
import dev.idem.spi.RecordKey;
import dev.idem.spi.Renewals;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The key store's lease renewals: on a connection of their own, one transaction per 500 leases, at
 * most three statements each (lock the in-progress records nobody else has locked, read the rest
 * without a lock, extend every locked lease whose token still matches in one batch).
 */
final class LeaseRenewals {
    /** Leases per batched renewal statement. */
    private static final int RENEW_CHUNK = 500;

    private final SqlStatements sql;
    /** The connection renewals run on, out of the application's reach. */
    private final ReservedConnection connection;

    LeaseRenewals(SqlStatements sql, ReservedConnection connection) {
        this.sql = sql;
        this.connection = connection;
    }

    /** Borrows the connection renewals run on, on the owner's thread, before its work takes the pool. */
    void reserve() throws SQLException {
        connection.reserve();
    }

    /** Renews {@code all} for {@code lease}; each round trip is bounded by a third of the lease. */
    Renewals renewAll(List<HeldLease> all, Duration lease) throws SQLException {
        Set<HeldLease> renewed = new HashSet<>();
        Set<HeldLease> lost = new HashSet<>();
        for (int from = 0; from < all.size(); from += RENEW_CHUNK) {
            List<HeldLease> chunk = all.subList(from, Math.min(all.size(), from + RENEW_CHUNK));
            connection.inTransaction(Math.max(1, lease.toMillis() / 3), c -> {
                renewChunk(c, chunk, lease, renewed, lost);
                return null;
            });
        }
        return new Renewals(renewed, lost);
    }

    private void renewChunk(Connection c, List<HeldLease> chunk, Duration lease, Set<HeldLease> renewed, Set<HeldLease> lost)
            throws SQLException {
        Map<RecordKey, Long> locked = tokens(c, "renew_many_lock", chunk);
        List<HeldLease> toRenew = new ArrayList<>();
        List<HeldLease> notLocked = new ArrayList<>();
        for (HeldLease held : chunk) {
            Long token = locked.get(held.id());
            if (token == null) {
                notLocked.add(held);
            } else if (token == held.token()) {
                toRenew.add(held);
            } else {
                lost.add(held);
            }
        }
        if (!notLocked.isEmpty()) {
            Map<RecordKey, Long> live = tokens(c, "renew_many_states", notLocked);
            for (HeldLease held : notLocked) {
                Long token = live.get(held.id());
                if (token == null || token != held.token()) {
                    lost.add(held);
                }
                // Else: live with this token but locked by another transaction; next tick.
            }
        }
        if (!toRenew.isEmpty()) {
            try (PreparedStatement ps = c.prepareStatement(sql.get("renew_locked"))) {
                for (HeldLease held : toRenew) {
                    ps.setLong(1, lease.toMillis());
                    ps.setString(2, held.id().scope().value());
                    ps.setString(3, held.id().key().value());
                    ps.addBatch();
                }
                ps.executeBatch();
            }
            renewed.addAll(toRenew);
        }
    }

    /** The in-progress records' tokens of {@code leases}' keys, read with the named statement. */
    private Map<RecordKey, Long> tokens(Connection c, String statement, List<HeldLease> leases) throws SQLException {
        Map<String, RecordKey> byName = new HashMap<>();
        try (PreparedStatement ps = c.prepareStatement(sql.expand(statement, "{rows}", sql.get("renew_many_row"), leases.size()))) {
            int i = 1;
            for (HeldLease held : leases) {
                ps.setString(i++, held.id().scope().value());
                ps.setString(i++, held.id().key().value());
                byName.put(held.id().scope().value() + "\u0000" + held.id().key().value(), held.id());
            }
            Map<RecordKey, Long> out = new HashMap<>();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    RecordKey id = byName.get(rs.getString(1) + "\u0000" + rs.getString(2));
                    if (id != null) {
                        out.put(id, rs.getLong(3));
                    }
                }
            }
            return out;
        }
    }
}
