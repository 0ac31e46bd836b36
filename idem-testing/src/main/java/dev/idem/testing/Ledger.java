package dev.idem.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;

/**
 * The table a consumer test books its messages into: {@code ledger (message_id, amount)}, with
 * <b>no unique constraint</b>, so that a second effect of one message shows as a second row instead
 * of being swallowed by the database. The broker suites publish messages {@code 0..n-1} with amounts
 * {@code 1..n} and check the ledger with {@link #assertExactlyOnce}.
 */
public final class Ledger {
    private final DataSource dataSource;

    private Ledger(DataSource dataSource) {
        this.dataSource = dataSource;
    }

    /** Creates the {@code ledger} table in the database. */
    public static Ledger create(DataSource dataSource) throws SQLException {
        try (Connection c = dataSource.getConnection(); Statement st = c.createStatement()) {
            st.execute("CREATE TABLE ledger (message_id TEXT NOT NULL, amount BIGINT NOT NULL)");
        }
        return new Ledger(dataSource);
    }

    /** Books one row on the handler's connection (its transaction). */
    public static void book(Connection connection, String messageId, long amount) throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement("INSERT INTO ledger (message_id, amount) VALUES (?, ?)")) {
            ps.setString(1, messageId);
            ps.setLong(2, amount);
            ps.executeUpdate();
        }
    }

    /** Committed rows. */
    public long rows() throws SQLException {
        return count("SELECT count(*) FROM ledger");
    }

    /** Committed rows of one message. */
    public long rows(String messageId) throws SQLException {
        try (Connection c = dataSource.getConnection();
             PreparedStatement ps = c.prepareStatement("SELECT count(*) FROM ledger WHERE message_id = ?")) {
            ps.setString(1, messageId);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }

    /** Asserts exactly {@code n} rows, for {@code n} distinct message ids, with amounts adding up to {@code 1 + … + n}. */
    public void assertExactlyOnce(int n) throws SQLException {
        assertThat(rows()).as("ledger rows").isEqualTo(n);
        assertThat(count("SELECT count(DISTINCT message_id) FROM ledger")).as("distinct messages in the ledger").isEqualTo(n);
        assertThat(count("SELECT coalesce(sum(amount), 0) FROM ledger")).as("sum of amounts").isEqualTo((long) n * (n + 1) / 2);
    }

    private long count(String query) throws SQLException {
        try (Connection c = dataSource.getConnection(); Statement st = c.createStatement(); ResultSet rs = st.executeQuery(query)) {
            rs.next();
            return rs.getLong(1);
        }
    }
}
