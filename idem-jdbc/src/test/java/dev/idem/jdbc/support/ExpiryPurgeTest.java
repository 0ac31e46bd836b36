package dev.idem.jdbc.support;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** On a real SQLite table: where each batch of a purge pass starts, and that a pass passes nothing over for good. */
class ExpiryPurgeTest {
    private static final String PURGE = "DELETE FROM t WHERE rowid IN (SELECT rowid FROM t WHERE expires_at >= ? AND expires_at <= 100"
            + " AND purgeable = 1 ORDER BY expires_at LIMIT ?) RETURNING expires_at";

    private Connection c;

    @BeforeEach
    void open() throws SQLException {
        c = DriverManager.getConnection("jdbc:sqlite::memory:");
        sql("CREATE TABLE t (expires_at INTEGER NOT NULL, purgeable INTEGER NOT NULL)");
        sql("CREATE INDEX t_expires_at ON t (expires_at)");
    }

    @AfterEach
    void close() throws SQLException {
        c.close();
    }

    @Test
    @DisplayName("each batch starts where the last full one ended; a row below that waits for the next pass, which starts at the bottom")
    void batchesWalkForwardAndTheNextPassStartsAtTheBottom() throws SQLException {
        sql("INSERT INTO t VALUES (10, 0), (20, 1), (30, 1), (40, 1), (50, 1)");
        ExpiryPurge purge = new ExpiryPurge();

        assertThat(purge.deleteBatch(c, PURGE, 2)).isEqualTo(2);
        assertThat(left()).containsExactly(10L, 40L, 50L);
        sql("UPDATE t SET purgeable = 1 WHERE expires_at = 10");
        sql("INSERT INTO t VALUES (25, 1)");

        assertThat(purge.deleteBatch(c, PURGE, 2)).as("from 30 on: 40 and 50, not 10 or 25 below it").isEqualTo(2);
        assertThat(left()).containsExactly(10L, 25L);
        assertThat(purge.deleteBatch(c, PURGE, 2)).as("nothing from 50 on: the pass ends").isZero();
        assertThat(purge.deleteBatch(c, PURGE, 2)).as("the next pass, from the bottom").isEqualTo(2);
        assertThat(left()).isEmpty();
    }

    @Test
    @DisplayName("a short batch ends the pass: the next batch starts at the bottom")
    void aShortBatchEndsThePass() throws SQLException {
        sql("INSERT INTO t VALUES (10, 0), (20, 1)");
        ExpiryPurge purge = new ExpiryPurge();
        assertThat(purge.deleteBatch(c, PURGE, 5)).isEqualTo(1);
        sql("UPDATE t SET purgeable = 1 WHERE expires_at = 10");
        assertThat(purge.deleteBatch(c, PURGE, 5)).isEqualTo(1);
        assertThat(left()).isEmpty();
    }

    private List<Long> left() throws SQLException {
        List<Long> rows = new ArrayList<>();
        try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery("SELECT expires_at FROM t ORDER BY expires_at")) {
            while (rs.next()) {
                rows.add(rs.getLong(1));
            }
        }
        return rows;
    }

    private void sql(String statement) throws SQLException {
        try (Statement st = c.createStatement()) {
            st.execute(statement);
        }
    }
}
