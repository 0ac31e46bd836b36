package dev.idem.inbox;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.jdbc.testing.Backends;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

class PostgresInboxTest extends InboxContract {
    @Override
    protected Backends backend() {
        return Backends.POSTGRESQL;
    }

    @Override
    protected long sessionId(Connection c) throws SQLException {
        try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery("SELECT pg_backend_pid()")) {
            rs.next();
            return rs.getLong(1);
        }
    }

    @Override
    protected void awaitLockWait(long pid) throws Exception {
        long deadline = System.nanoTime() + 30_000_000_000L;
        try (Connection c = db.dataSource().getConnection();
             PreparedStatement ps = c.prepareStatement("SELECT count(*) FROM pg_stat_activity WHERE pid = ? AND wait_event_type = 'Lock'")) {
            ps.setLong(1, pid);
            while (true) {
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    if (rs.getInt(1) > 0) {
                        return;
                    }
                }
                assertThat(System.nanoTime()).as("the second claim never waited on the first one's uncommitted row").isLessThan(deadline);
                Thread.sleep(5);
            }
        }
    }
}
