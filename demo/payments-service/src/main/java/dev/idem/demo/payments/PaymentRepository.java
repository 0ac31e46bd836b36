package dev.idem.demo.payments;

import dev.idem.jdbc.SchemaMigrations;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import javax.sql.DataSource;

/**
 * The {@code payment} table, on PostgreSQL or SQLite (the same SQL on both). Each payment has a
 * unique {@code request_key}: the phase's derived key for a payment made under an
 * {@code Idempotency-Key}, so creating it again after a crash finds the first row instead of adding
 * one ({@code INSERT … ON CONFLICT DO NOTHING}). Marking it paid sets a state, so doing it twice is
 * harmless; the transition to paid also writes the payment's event through the outbox, in the same
 * transaction ({@link PaymentEvents}). A failed statement is a 503 if the failure passes, else
 * unexpected ({@link DatabaseFailures}).
 */
public final class PaymentRepository {
    public static final String TABLE = "payment";

    private final DataSource dataSource;
    private final PaymentEvents events;

    /** A repository without payment events. */
    public PaymentRepository(DataSource dataSource) {
        this(dataSource, PaymentEvents.disabled());
    }

    public PaymentRepository(DataSource dataSource, PaymentEvents events) {
        this.dataSource = dataSource;
        this.events = events;
    }

    /**
     * Creates the table if it does not exist, through idem's migrations: instances starting together on
     * a fresh database take turns under its lock, and a database briefly out of reach is waited for
     * (up to a minute) instead of ending the start-up.
     */
    public void createTable() {
        // sample: stores-schema-migrations
        SchemaMigrations.builder(dataSource).track("payment").files(PaymentRepository.class)
                .migration(1, "create_payment").build().migrate();
        // end sample
    }

    /**
     * The id of the pending payment created under {@code requestKey}: a new row, or the one an earlier
     * attempt with the same request key created.
     */
    public String createPending(String requestKey, PaymentRequest request) {
        String newId = "pay_" + UUID.randomUUID().toString().replace("-", "").substring(0, 24);
        long now = System.currentTimeMillis();
        try (Connection c = dataSource.getConnection()) {
            try (PreparedStatement insert = c.prepareStatement("INSERT INTO " + TABLE
                    + " (id, request_key, amount, currency, card, status, charge_id, created_at, updated_at)"
                    + " VALUES (?, ?, ?, ?, ?, ?, NULL, ?, ?) ON CONFLICT (request_key) DO NOTHING")) {
                insert.setString(1, newId);
                insert.setString(2, requestKey);
                insert.setLong(3, request.amount());
                insert.setString(4, request.currency());
                insert.setString(5, request.card());
                insert.setString(6, Payment.PENDING);
                insert.setLong(7, now);
                insert.setLong(8, now);
                if (insert.executeUpdate() == 1) {
                    return newId;
                }
            }
            try (PreparedStatement select = c.prepareStatement("SELECT id FROM " + TABLE + " WHERE request_key = ?")) {
                select.setString(1, requestKey);
                try (ResultSet rs = select.executeQuery()) {
                    if (!rs.next()) {
                        throw new IllegalStateException("payment row vanished between insert and select");
                    }
                    return rs.getString(1);
                }
            }
        } catch (SQLException e) {
            throw DatabaseFailures.of("create the payment", e);
        }
    }

    /**
     * Sets the payment to paid with this charge, and writes its {@code payment.paid} event (when events
     * are on) in the same transaction: the event exists if and only if the payment became paid. Only the
     * transition from another status writes; marking a paid payment paid again (a resumed request)
     * changes nothing and writes no second event.
     */
    public void markPaid(String id, String chargeId) {
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(false);
            try {
                transitionToPaid(c, id, chargeId);
                c.commit();
            } catch (SQLException | RuntimeException e) {
                c.rollback();
                throw e;
            } finally {
                c.setAutoCommit(true);
            }
        } catch (SQLException e) {
            throw DatabaseFailures.of("mark the payment paid", e);
        }
    }

    private void transitionToPaid(Connection c, String id, String chargeId) throws SQLException {
        int changed;
        try (PreparedStatement update = c.prepareStatement("UPDATE " + TABLE
                + " SET status = ?, charge_id = ?, updated_at = ? WHERE id = ? AND status <> ?")) {
            update.setString(1, Payment.PAID);
            update.setString(2, chargeId);
            update.setLong(3, System.currentTimeMillis());
            update.setString(4, id);
            update.setString(5, Payment.PAID);
            changed = update.executeUpdate();
        }
        try (PreparedStatement select = c.prepareStatement("SELECT card, amount, currency FROM " + TABLE + " WHERE id = ?")) {
            select.setString(1, id);
            try (ResultSet rs = select.executeQuery()) {
                if (!rs.next()) {
                    throw new IllegalStateException("no payment row to mark paid");
                }
                if (changed == 1) {
                    events.paid(c, new Payment(id, Payment.PAID, chargeId, rs.getLong(2), rs.getString(3)), rs.getString(1));
                }
            }
        }
    }

    public Optional<Payment> find(String id) {
        try (Connection c = dataSource.getConnection();
             PreparedStatement select = c.prepareStatement("SELECT id, status, charge_id, amount, currency FROM " + TABLE + " WHERE id = ?")) {
            select.setString(1, id);
            try (ResultSet rs = select.executeQuery()) {
                if (!rs.next()) {
                    return Optional.empty();
                }
                return Optional.of(new Payment(rs.getString(1), rs.getString(2), rs.getString(3), rs.getLong(4), rs.getString(5)));
            }
        } catch (SQLException e) {
            throw DatabaseFailures.of("read the payment", e);
        }
    }

    /** Every payment's status by its card (the lab's join key: one card per logical payment); a card with a paid row shows paid. */
    public Map<String, String> statesByCard() {
        Map<String, String> states = new LinkedHashMap<>();
        try (Connection c = dataSource.getConnection();
             PreparedStatement select = c.prepareStatement("SELECT card, status FROM " + TABLE);
             ResultSet rs = select.executeQuery()) {
            while (rs.next()) {
                states.merge(rs.getString(1), rs.getString(2), (one, other) -> Payment.PAID.equals(one) ? one : other);
            }
            return states;
        } catch (SQLException e) {
            throw DatabaseFailures.of("read the payments", e);
        }
    }
}
