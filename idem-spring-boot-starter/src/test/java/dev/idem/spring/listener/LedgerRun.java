package dev.idem.spring.listener;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;
import com.zaxxer.hikari.HikariDataSource;
import dev.idem.testing.TestDatabase;

/**
 * Keeps {@code instances} ledger processes running (one that halted is started again) until every
 * expected ledger row is there, then stops them; and reads the ledger: count, distinct numbers, sum.
 */
final class LedgerRun {
    /** What the ledger holds for one listener. */
    record Totals(long rows, long distinct, long sum) {
    }

    private LedgerRun() {
    }

    /**
     * Runs until each of {@code listeners} has {@code expected} distinct rows, restarting halted
     * processes; returns how many times a process halted.
     */
    static int untilComplete(Path dir, List<String> arguments, int instances, DataSource db, Map<String, Integer> expected,
                             Duration limit) throws Exception {
        List<LedgerProcess> running = new ArrayList<>();
        int halts = 0;
        Instant deadline = Instant.now().plus(limit);
        try {
            for (int i = 0; i < instances; i++) {
                running.add(LedgerProcess.start(dir, arguments));
            }
            while (!complete(db, expected)) {
                for (int i = 0; i < running.size(); i++) {
                    LedgerProcess p = running.get(i);
                    if (!p.isAlive()) {
                        assertThat(p.exitValue()).as("a process ended other than by the listener's halt:\n%s", p.tail()).isEqualTo(3);
                        halts++;
                        running.set(i, LedgerProcess.start(dir, arguments));
                    }
                }
                if (Instant.now().isAfter(deadline)) {
                    throw new AssertionError("the ledger was not complete within " + limit + ": " + expected.keySet().stream().map(l -> {
                        try {
                            return l + " " + totals(db, l);
                        } catch (SQLException e) {
                            return l + " " + e;
                        }
                    }).toList()
                            + "\n" + running.get(0).tail());
                }
                Thread.sleep(200);
            }
            Thread.sleep(1000);  // time for a last (wrong) duplicate to show up, if there were one
            return halts;
        } finally {
            for (LedgerProcess p : running) {
                p.close();
            }
        }
    }

    static boolean complete(DataSource db, Map<String, Integer> expected) throws SQLException {
        for (Map.Entry<String, Integer> listener : expected.entrySet()) {
            if (totals(db, listener.getKey()).distinct() < listener.getValue()) {
                return false;
            }
        }
        return true;
    }

    static Totals totals(DataSource db, String listener) throws SQLException {
        try (Connection c = db.getConnection()) {
            if (!c.getMetaData().getTables(null, c.getSchema(), "ledger", null).next()) {
                return new Totals(0, 0, 0);
            }
            try (PreparedStatement ps = c.prepareStatement(
                    "SELECT count(*), count(DISTINCT number), coalesce(sum(amount), 0) FROM ledger WHERE listener = ?")) {
                ps.setString(1, listener);
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    return new Totals(rs.getLong(1), rs.getLong(2), rs.getLong(3));
                }
            }
        }
    }

    /**
     * The database's URL for the application processes, with {@code synchronous_commit=off}: the
     * processes die, the database does not, so a commit the server acknowledged stays; without the
     * flush wait, one transaction per message keeps up even on a busy shared test machine.
     */
    static String unsyncedUrl(TestDatabase db) {
        return ((HikariDataSource) db.dataSource()).getJdbcUrl() + "&options=-c%20synchronous_commit%3Doff";
    }

    static Path markers(Path dir) throws java.io.IOException {
        return Files.createDirectories(dir.resolve("markers"));
    }
}
