package dev.idem.outbox;

import dev.idem.jdbc.Dialect;
import dev.idem.jdbc.support.SqlStatements;
import dev.idem.jdbc.support.StoreCalls;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** The reads behind {@link Outbox#backlog}: the statements of {@code outbox-admin.sql}, in one transaction. */
final class OutboxInspection {
    private static final List<String> STATEMENTS = List.of("admin_outbox_totals", "admin_outbox_destinations", "admin_outbox_failing");
    /** Destinations listed at most: an outbox routes to a handful; a bound keeps a mistake from listing thousands. */
    private static final int MAX_DESTINATIONS = 100;

    private final StoreCalls calls;
    private final SqlStatements sql;

    OutboxInspection(Dialect dialect, Map<String, String> tableNames, StoreCalls calls) {
        this.calls = calls;
        this.sql = SqlStatements.load(dialect, SqlStatements.Source.of(Outbox.class), "outbox-admin.sql", tableNames, STATEMENTS);
    }

    OutboxBacklog backlog(int failingLimit) {
        return calls.inTransaction("read the backlog", c -> {
            long pending;
            long oldest;
            boolean any;
            long now;
            try (PreparedStatement ps = c.prepareStatement(sql.get("admin_outbox_totals")); ResultSet rs = ps.executeQuery()) {
                rs.next();
                pending = rs.getLong("pending");
                oldest = rs.getLong("oldest");
                any = !rs.wasNull();
                now = rs.getLong("now_ms");
            }
            List<OutboxBacklog.Destination> destinations = new ArrayList<>();
            try (PreparedStatement ps = c.prepareStatement(sql.get("admin_outbox_destinations"))) {
                ps.setInt(1, MAX_DESTINATIONS);
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        destinations.add(new OutboxBacklog.Destination(rs.getString("aggregate_type"), rs.getLong("pending"),
                                age(now, rs.getLong("oldest")), rs.getInt("max_attempts")));
                    }
                }
            }
            List<OutboxBacklog.FailingEvent> failing = new ArrayList<>();
            try (PreparedStatement ps = c.prepareStatement(sql.get("admin_outbox_failing"))) {
                ps.setInt(1, failingLimit);
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        failing.add(new OutboxBacklog.FailingEvent(rs.getLong("id"), rs.getString("message_id"), rs.getString("aggregate_type"),
                                rs.getString("aggregate_id"), rs.getLong("sequence"), rs.getString("event_type"), rs.getInt("attempts"),
                                Instant.ofEpochMilli(rs.getLong("created_at")), Instant.ofEpochMilli(rs.getLong("next_attempt_at")),
                                Optional.ofNullable(rs.getString("last_error"))));
                    }
                }
            }
            return new OutboxBacklog(pending, any ? Optional.of(age(now, oldest)) : Optional.empty(), destinations, failing,
                    Instant.ofEpochMilli(now));
        });
    }

    private static Duration age(long now, long since) {
        return Duration.ofMillis(Math.max(0, now - since));
    }
}
