package dev.idem.docs.samples;

import dev.idem.inbox.InboxMessage;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;

/**
 * The consumers' writes in the messaging samples: one row per applied message in {@code ledger_entry
 * (entry)}, so that a message applied twice shows as two rows.
 */
public final class Entries {
    private Entries() {
    }

    public static void createTable(DataSource dataSource) throws SQLException {
        try (Connection c = dataSource.getConnection(); Statement st = c.createStatement()) {
            st.execute("CREATE TABLE ledger_entry (entry VARCHAR(255) NOT NULL)");
        }
    }

    public static void insertEntry(Connection connection, InboxMessage message) throws SQLException {
        insertLedgerEntry(connection, message.id());
    }

    public static void insertEntry(Connection connection, byte[] body) throws SQLException {
        insertLedgerEntry(connection, new String(body, StandardCharsets.UTF_8));
    }

    public static void insertLedgerEntry(Connection connection, String entry) throws SQLException {
        try (PreparedStatement insert = connection.prepareStatement("INSERT INTO ledger_entry (entry) VALUES (?)")) {
            insert.setString(1, entry);
            insert.executeUpdate();
        }
    }

    public static long count(DataSource dataSource) throws SQLException {
        try (Connection c = dataSource.getConnection(); Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT COUNT(*) FROM ledger_entry")) {
            rs.next();
            return rs.getLong(1);
        }
    }
}
