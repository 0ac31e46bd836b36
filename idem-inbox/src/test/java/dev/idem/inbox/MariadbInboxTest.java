package dev.idem.inbox;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.inbox.InboxOutcome.Status;
import dev.idem.jdbc.testing.Backends;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class MariadbInboxTest extends InboxContract {
    @Override
    protected Backends backend() {
        return Backends.MARIADB;
    }

    @Override
    protected long sessionId(Connection c) throws SQLException {
        try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery("SELECT CONNECTION_ID()")) {
            rs.next();
            return rs.getLong(1);
        }
    }

    /** The statement a claim waits in for another delivery's transaction, as a LIKE pattern. */
    protected String waitingClaim() {
        return "INSERT IGNORE INTO idem_inbox%";
    }

    /**
     * Returns once the session runs the inbox's claim (its statement in the process list), which waits
     * on the first claim's uncommitted row. Not innodb_trx's LOCK WAIT: InnoDB does not always list a
     * transaction whose only work is a waiting insert there, which failed this test about one run in
     * ten (found by running the module in a loop).
     */
    @Override
    protected void awaitLockWait(long connectionId) throws Exception {
        long deadline = System.nanoTime() + 30_000_000_000L;
        try (Connection c = db.dataSource().getConnection();
             PreparedStatement ps = c.prepareStatement(
                     "SELECT count(*) FROM information_schema.processlist WHERE id = ? AND info LIKE ?")) {
            ps.setLong(1, connectionId);
            ps.setString(2, waitingClaim());
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

    @Test
    @DisplayName("deliveries waiting on a claim that rolls back are not failed by the deadlock InnoDB breaks between them")
    void waitersOnARolledBackClaimAreNotFailedByTheirDeadlock() throws Exception {
        // When the uncommitted first claim rolls back, each waiter holds a shared lock on the id's
        // index entry and needs the exclusive one to insert: InnoDB kills one as a deadlock victim.
        ExecutorService pool = Executors.newFixedThreadPool(3);
        try {
            for (int round = 0; round < 3; round++) {
                String id = "rolled-back-" + round;
                List<Future<InboxOutcome>> waiters = new ArrayList<>();
                try (Connection first = db.dataSource().getConnection()) {
                    first.setAutoCommit(false);
                    assertThat(inbox.claim(first, CONSUMER, id)).isTrue();
                    for (int i = 0; i < 3; i++) {
                        waiters.add(pool.submit(() -> inbox.process(CONSUMER, id, (c, m) -> insertLedger(c, m.id(), 10))));
                    }
                    awaitClaimsWaiting(3);
                    first.rollback();
                    first.setAutoCommit(true);
                }
                List<Status> statuses = new ArrayList<>();
                for (Future<InboxOutcome> waiter : waiters) {
                    statuses.add(waiter.get(60, TimeUnit.SECONDS).status());
                }
                assertThat(statuses).as("round " + round).containsExactlyInAnyOrder(Status.PROCESSED, Status.DUPLICATE, Status.DUPLICATE);
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(ledgerRows()).isEqualTo(3);
    }

    /**
     * Waits until {@code sessions} sessions of this database run the inbox's claim. The first claim's
     * row is uncommitted, so they wait on it. (The process list, not innodb_trx: InnoDB does not list
     * every waiting insert there.)
     */
    private void awaitClaimsWaiting(int sessions) throws Exception {
        String waiting = "SELECT count(*) FROM information_schema.processlist WHERE db = DATABASE() AND info LIKE '" + waitingClaim() + "'";
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (count(waiting) < sessions) {
            assertThat(System.nanoTime()).as(sessions + " claims never waited on the first one's uncommitted row").isLessThan(deadline);
            Thread.sleep(5);
        }
    }
}
