package dev.idem.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Where the next batch of a row-by-row purge starts along the expiry index: at the highest expiry the
 * last full batch deleted, back at the bottom once a batch comes back short (the pass is over).
 *
 * <p>Why: a deleted row's index entry stays until a vacuum (PostgreSQL) or the purge thread (InnoDB)
 * removes it, and on a large table autovacuum comes rarely. A batch that started at the bottom of the
 * index would walk every entry the batches before it deleted, so a pass of n rows cost about
 * n² / (2 × batch) entry visits (at 50 million records, the last batches of an expired hour's 2 million
 * rows each read 14,000 index pages, 37 ms, for a few rows). Starting where the last batch ended, a
 * pass walks the dead entries once.
 *
 * <p>Nothing is lost by it: a row a batch passes over below the floor (locked by a claim, or past its
 * retention with its lease still live) is found by the next pass, which starts at the bottom again.
 */
final class PurgeFloor {
    private final AtomicLong from = new AtomicLong(Long.MIN_VALUE);

    /**
     * One batch of a purge statement whose parameters are the lowest expiry to look at and the batch's
     * limit, and which returns the deleted rows' expiries; the floor moves on from them.
     *
     * @return the rows deleted
     */
    int deleteBatch(Connection c, String statement, int limit) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(statement)) {
            ps.setLong(1, from.get());
            ps.setInt(2, limit);
            int deleted = 0;
            long highest = Long.MIN_VALUE;
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    deleted++;
                    highest = Math.max(highest, rs.getLong(1));
                }
            }
            after(deleted, limit, highest);
            return deleted;
        }
    }

    private void after(int deleted, int limit, long highestDeleted) {
        if (deleted < limit) {
            from.set(Long.MIN_VALUE);
        } else {
            from.accumulateAndGet(highestDeleted, Math::max);
        }
    }
}
