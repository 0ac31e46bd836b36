package dev.idem.demo.gateway;

import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;

/**
 * The charges table: the ground truth the lab counts from. It has deliberately no unique constraint
 * on the idempotency key: deduplication is idem's job, and the ledger must be able to show it if
 * that job was not done.
 */
final class ChargeLedger {
    static final String TABLE = "gateway_charge";
    /** The gateway's own idem table, so it can share a database with the payments service. */
    static final String IDEM_TABLE = "gateway_idem_record";

    private static final String CREATE = "CREATE TABLE IF NOT EXISTS " + TABLE + " ("
            + " charge_id VARCHAR(40) PRIMARY KEY,"
            + " idem_key VARCHAR(255) NOT NULL,"
            + " amount BIGINT NOT NULL,"
            + " currency VARCHAR(3) NOT NULL,"
            + " card VARCHAR(64) NOT NULL,"
            + " reference VARCHAR(128),"
            + " created_at BIGINT NOT NULL)";
    private static final String INSERT = "INSERT INTO " + TABLE
            + " (charge_id, idem_key, amount, currency, card, reference, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)";
    private static final String LIST = "SELECT charge_id, idem_key, amount, currency, card, reference, created_at FROM "
            + TABLE + " ORDER BY created_at, charge_id";

    private final DataSource dataSource;
    private final SecureRandom random = new SecureRandom();
    /**
     * Charge requests answered from their key's stored response since start (or the last clear): calls
     * the caller made again for a charge already made. In memory: a count for the lab, not money.
     */
    private final java.util.Map<String, Long> replays = new java.util.concurrent.ConcurrentHashMap<>();
    private final AtomicInteger answersPending = new AtomicInteger();

    ChargeLedger(DataSource dataSource) {
        this.dataSource = dataSource;
    }

    void migrate() throws SQLException {
        try (Connection c = dataSource.getConnection(); Statement st = c.createStatement()) {
            st.execute(CREATE);
        }
    }

    /** Records a charge on the caller's connection, inside its transaction. */
    Charge insert(Connection c, String key, ChargeRequest request) throws SQLException {
        Charge charge = new Charge(newChargeId(), key, request.amount(), request.currency(), request.card(),
                request.reference(), Instant.now());
        try (PreparedStatement ps = c.prepareStatement(INSERT)) {
            ps.setString(1, charge.chargeId());
            ps.setString(2, charge.key());
            ps.setLong(3, charge.amount());
            ps.setString(4, charge.currency());
            ps.setString(5, charge.card());
            ps.setString(6, charge.reference());
            ps.setLong(7, charge.createdAt().toEpochMilli());
            ps.executeUpdate();
        }
        return charge;
    }

    List<Charge> all() throws SQLException {
        List<Charge> charges = new ArrayList<>();
        try (Connection c = dataSource.getConnection(); PreparedStatement ps = c.prepareStatement(LIST); ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                charges.add(new Charge(rs.getString(1), rs.getString(2), rs.getLong(3), rs.getString(4), rs.getString(5),
                        rs.getString(6), Instant.ofEpochMilli(rs.getLong(7))));
            }
        }
        return charges;
    }

    /** A charge request answered as the replay of a charge already made under {@code key}. */
    void countReplay(String key) {
        replays.merge(key, 1L, Long::sum);
    }

    /** Replays by idempotency key. */
    java.util.Map<String, Long> replays() {
        return new java.util.TreeMap<>(replays);
    }

    /** A committed charge's answer is on its way (the after-faults may still delay or lose it). */
    void answering() {
        answersPending.incrementAndGet();
    }

    /** That answer was sent, or lost by an after-fault. */
    void answered() {
        answersPending.decrementAndGet();
    }

    /**
     * Charges committed whose caller has not been answered yet: a caller killed now has had its
     * card charged without learning it, which is the moment the lab's SIGKILL is aimed at.
     */
    int answersPending() {
        return answersPending.get();
    }

    /**
     * Deletes every charge and every idempotency record, in one transaction, so keys can be reused
     * by the next scenario. Returns the number of charges deleted.
     */
    int clear() throws SQLException {
        replays.clear();
        try (Connection c = dataSource.getConnection()) {
            boolean autoCommit = c.getAutoCommit();
            c.setAutoCommit(false);
            try (Statement st = c.createStatement()) {
                int deleted = st.executeUpdate("DELETE FROM " + TABLE);
                st.executeUpdate("DELETE FROM " + IDEM_TABLE);
                c.commit();
                return deleted;
            } catch (SQLException e) {
                c.rollback();
                throw e;
            } finally {
                c.setAutoCommit(autoCommit);
            }
        }
    }

    private String newChargeId() {
        byte[] bytes = new byte[12];
        random.nextBytes(bytes);
        return "ch_" + HexFormat.of().formatHex(bytes);
    }
}
