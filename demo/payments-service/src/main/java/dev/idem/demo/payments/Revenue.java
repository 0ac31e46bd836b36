package dev.idem.demo.payments;

import dev.idem.upserts.WindowedTotals;
import dev.idem.upserts.WindowedTotals.Event;
import dev.idem.upserts.WindowedTotals.Recomputation;
import dev.idem.upserts.WindowedTotals.WindowTotal;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;

/**
 * Revenue per minute and currency: idem's {@link WindowedTotals} over the paid payments, a payment
 * counting in the minute it became paid ({@code updated_at}, which only the transition to paid sets).
 * A recomputation reads every paid payment of its range from the {@code payment} table and
 * overwrites the range's totals, so running it again, or twice at once, leaves the same totals.
 */
public final class Revenue {
    static final String AGGREGATE = "revenue_per_minute";
    static final Duration WINDOW = Duration.ofMinutes(1);
    private static final String PAID_IN_RANGE = "SELECT id, updated_at, currency, amount FROM " + PaymentRepository.TABLE
            + " WHERE status = ? AND updated_at >= ? AND updated_at < ?";

    private final DataSource dataSource;
    private final WindowedTotals totals;

    public Revenue(DataSource dataSource) {
        this.dataSource = dataSource;
        this.totals = WindowedTotals.builder(dataSource).name(AGGREGATE).window(WINDOW).build();
    }

    /** Creates the totals tables if they are missing (idem's migrations, under their lock). */
    public void migrate() {
        totals.migrate();
    }

    /**
     * Recomputes the minutes of {@code [from, to)} from the payments paid in them.
     *
     * @throws IllegalArgumentException if {@code from} or {@code to} is not a whole minute, or {@code to} is not after {@code from}
     */
    public Recomputation recompute(Instant from, Instant to) {
        return totals.recompute(from, to, paidBetween(from, to));
    }

    /** The totals of the minutes starting in {@code [from, to)}, by minute, then currency. */
    public List<WindowTotal> totals(Instant from, Instant to) {
        return totals.totals(from, to);
    }

    private List<Event> paidBetween(Instant from, Instant to) {
        List<Event> events = new ArrayList<>();
        try (Connection c = dataSource.getConnection(); PreparedStatement ps = c.prepareStatement(PAID_IN_RANGE)) {
            ps.setString(1, Payment.PAID);
            ps.setLong(2, from.toEpochMilli());
            ps.setLong(3, to.toEpochMilli());
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    events.add(new Event(rs.getString(1), Instant.ofEpochMilli(rs.getLong(2)), rs.getString(3), rs.getLong(4)));
                }
            }
        } catch (SQLException e) {
            throw new IllegalStateException("cannot read the paid payments: " + e.getMessage(), e);
        }
        return events;
    }
}
