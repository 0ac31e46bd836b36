package dev.idem.demo.ledger;

import dev.idem.jdbc.Dialect;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import javax.sql.DataSource;

/**
 * The ledger: table {@code ledger_entry}, one row appended per payment event written. It has no
 * unique constraint on {@code payment_id} on purpose: a ledger appends, and keeping a redelivered
 * event from being written twice is the inbox's job (mode {@code inbox}). Without the inbox (mode
 * {@code no-inbox}) nothing stops a second row, which is what the demo shows.
 *
 * <p>{@code message_id} is the id the inbox deduplicated the record by (its {@code message-id} header,
 * else its coordinates) in inbox mode, and the {@code message-id} header or null without the inbox.
 * {@code created_at} is epoch milliseconds on this process's clock.
 *
 * <p>Every append also sets the balance of the entry's card in {@link CardBalances}, in the same
 * transaction, so a balance never disagrees with the committed entries.
 */
final class LedgerTable {
    static final String TABLE = "ledger_entry";

    private static final String POSTGRESQL_DDL = """
            CREATE TABLE IF NOT EXISTS ledger_entry (
                entry_id   bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                payment_id text   NOT NULL,
                card       text   NOT NULL,
                amount     bigint NOT NULL,
                currency   text   NOT NULL,
                message_id text,
                created_at bigint NOT NULL
            )""";
    // AUTOINCREMENT: an entry id is never handed out twice, not even after the newest rows are deleted.
    private static final String SQLITE_DDL = """
            CREATE TABLE IF NOT EXISTS ledger_entry (
                entry_id   INTEGER PRIMARY KEY AUTOINCREMENT,
                payment_id TEXT    NOT NULL,
                card       TEXT    NOT NULL,
                amount     BIGINT  NOT NULL,
                currency   TEXT    NOT NULL,
                message_id TEXT,
                created_at BIGINT  NOT NULL
            )""";
    private static final String MARIADB_DDL = """
            CREATE TABLE IF NOT EXISTS ledger_entry (
                entry_id   BIGINT       NOT NULL AUTO_INCREMENT PRIMARY KEY,
                payment_id VARCHAR(255) NOT NULL,
                card       VARCHAR(255) NOT NULL,
                amount     BIGINT       NOT NULL,
                currency   VARCHAR(16)  NOT NULL,
                message_id VARCHAR(255),
                created_at BIGINT       NOT NULL
            ) ENGINE = InnoDB""";
    private static final String INSERT =
            "INSERT INTO ledger_entry (payment_id, card, amount, currency, message_id, created_at) VALUES (?, ?, ?, ?, ?, ?)";
    private static final String SELECT_ALL =
            "SELECT entry_id, payment_id, card, amount, currency, message_id FROM ledger_entry ORDER BY entry_id";

    private final DataSource dataSource;
    private final Dialect dialect;

    LedgerTable(DataSource dataSource, Dialect dialect) {
        this.dataSource = dataSource;
        this.dialect = dialect;
    }

    /** Creates the ledger and balance tables if they are missing. */
    void migrate() throws SQLException {
        try (Connection c = dataSource.getConnection(); Statement st = c.createStatement()) {
            st.execute(switch (dialect) {
                case POSTGRESQL -> POSTGRESQL_DDL;
                case MARIADB -> MARIADB_DDL;
                case SQLITE -> SQLITE_DDL;
            });
            st.execute(CardBalances.LEDGER_INDEX);
            st.execute(CardBalances.ddl(dialect));
        }
    }

    /** Deletes every entry and starts the entry ids at 1 again (for {@code --reset}). */
    void clear() throws SQLException {
        try (Connection c = dataSource.getConnection(); Statement st = c.createStatement()) {
            if (dialect == Dialect.POSTGRESQL) {
                st.execute("TRUNCATE ledger_entry, card_balance RESTART IDENTITY");
            } else if (dialect == Dialect.MARIADB) {
                // TRUNCATE recreates the table, which starts AUTO_INCREMENT at 1 again.
                st.execute("TRUNCATE TABLE ledger_entry");
                st.execute("TRUNCATE TABLE card_balance");
            } else {
                boolean autoCommit = c.getAutoCommit();
                c.setAutoCommit(false);
                try {
                    st.executeUpdate("DELETE FROM ledger_entry");
                    st.executeUpdate("DELETE FROM card_balance");
                    // The AUTOINCREMENT counter; its table exists once the ledger table does.
                    st.executeUpdate("DELETE FROM sqlite_sequence WHERE name = 'ledger_entry'");
                    c.commit();
                } catch (SQLException e) {
                    c.rollback();
                    throw e;
                } finally {
                    c.setAutoCommit(autoCommit);
                }
            }
        }
    }

    /**
     * Appends one entry and sets its card's balance on {@code connection}, inside the caller's
     * transaction (the caller commits).
     */
    static void append(Connection connection, PaymentEvent event, String messageId) throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement(INSERT)) {
            bind(ps, event, messageId);
            ps.executeUpdate();
        }
        CardBalances.refresh(connection, event.card(), event.currency());
    }

    /**
     * Appends entries in one batch statement, then sets the balance of each card they touch once, on
     * {@code connection}, inside the caller's transaction.
     */
    static void appendAll(Connection connection, List<PaymentEvent> events, List<String> messageIds) throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement(INSERT)) {
            for (int i = 0; i < events.size(); i++) {
                bind(ps, events.get(i), messageIds.get(i));
                ps.addBatch();
            }
            ps.executeBatch();
        }
        Set<List<String>> cards = new LinkedHashSet<>();
        for (PaymentEvent event : events) {
            cards.add(List.of(event.card(), event.currency()));
        }
        for (List<String> card : cards) {
            CardBalances.refresh(connection, card.get(0), card.get(1));
        }
    }

    private static void bind(PreparedStatement ps, PaymentEvent event, String messageId) throws SQLException {
        ps.setString(1, event.paymentId());
        ps.setString(2, event.card());
        ps.setLong(3, event.amount());
        ps.setString(4, event.currency());
        ps.setString(5, messageId);
        ps.setLong(6, System.currentTimeMillis());
    }

    /** Every entry, in the order written. */
    List<LedgerEntry> entries() throws SQLException {
        List<LedgerEntry> entries = new ArrayList<>();
        try (Connection c = dataSource.getConnection(); PreparedStatement ps = c.prepareStatement(SELECT_ALL);
             ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                entries.add(new LedgerEntry(rs.getLong(1), rs.getString(2), rs.getString(3), rs.getLong(4), rs.getString(5), rs.getString(6)));
            }
        }
        return entries;
    }
}
