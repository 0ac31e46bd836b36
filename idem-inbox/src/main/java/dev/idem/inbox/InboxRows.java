package dev.idem.inbox;

import dev.idem.spi.ListenerCalls;
import dev.idem.jdbc.support.FailureText;
import dev.idem.jdbc.support.MessageHeaders;
import dev.idem.jdbc.support.SqlStatements;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.zip.CRC32;

/**
 * The inbox's statements on a connection, inside a transaction someone else manages: claiming ids,
 * telling why ids were not claimed, and counting a failed attempt (quarantining at the limit). The
 * {@link Inbox} decides the transactions around them; the {@link Quarantine} reuses the updates.
 */
final class InboxRows {
    private static final String ROWS = "{rows}";
    private static final char ID_SEPARATOR = '\n';
    private final SqlStatements sql;
    private final Duration retention;
    private final int maxAttempts;
    private final InboxListener listener;
    /** The text recorded with a failure's class in the quarantine's error column; null records none. */
    private final Function<? super Throwable, String> errorText;
    /**
     * Whether the dialect's claim binds the ids as one array (no {@value #ROWS} in its text): one
     * statement text for every batch size, three parameters; else a VALUES row of three per id.
     */
    private final boolean arrayBoundClaim;
    /**
     * Whether the table is kept with retention by partition: then every write that adds a message's
     * row first takes the ids' locks ({@code inbox_lock}, see postgresql/inbox-partitioned.sql), which
     * stand in for the unique index a partitioned table cannot have.
     */
    private final boolean partitioned;

    InboxRows(SqlStatements sql, Duration retention, int maxAttempts, InboxListener listener,
              Function<? super Throwable, String> errorText, boolean partitioned) {
        this.sql = sql;
        this.partitioned = partitioned;
        this.errorText = errorText;
        this.arrayBoundClaim = !sql.get("inbox_claim").contains(ROWS);
        this.retention = retention;
        this.maxAttempts = maxAttempts;
        this.listener = listener;
    }

    /**
     * Runs the claim statement in chunks; returns the ids that were new. The ids are claimed in
     * sorted order: a claim waits on another transaction's uncommitted row of the same id, so two
     * batches claiming overlapping ids in different orders could each wait on the other (PostgreSQL
     * detects that and aborts one); in one global order they cannot.
     */
    Set<String> claimIds(Connection c, String consumer, Collection<String> ids) throws SQLException {
        Set<String> claimed = new HashSet<>(InboxTransaction.capacity(ids.size()));
        List<String> all = new ArrayList<>(ids);
        Collections.sort(all);
        long retentionMs = retention.toMillis();
        if (partitioned) {
            // Every id's lock before the first claim: a batch's chunks must not take locks in two orders.
            lockIds(c, consumer, all);
        }
        for (int from = 0; from < all.size(); from += Inbox.CLAIM_CHUNK) {
            List<String> chunk = all.subList(from, Math.min(all.size(), from + Inbox.CLAIM_CHUNK));
            if (arrayBoundClaim) {
                claimArray(c, consumer, chunk, retentionMs, claimed);
            } else {
                claimRows(c, consumer, chunk, retentionMs, claimed);
            }
        }
        return claimed;
    }

    /** One {@code VALUES} row of three parameters per id. */
    private void claimRows(Connection c, String consumer, List<String> ids, long retentionMs, Set<String> claimed) throws SQLException {
        // The partitioned claim's rows are a derived table of SELECTs, not a VALUES list.
        String claim = sql.expand("inbox_claim", ROWS, sql.get("inbox_claim_row"), ids.size(), partitioned ? " UNION ALL " : ", ");
        try (PreparedStatement ps = c.prepareStatement(claim)) {
            int i = 1;
            for (String id : ids) {
                ps.setString(i++, consumer);
                ps.setString(i++, id);
                ps.setLong(i++, retentionMs);
            }
            readIds(ps, claimed);
        }
    }

    /** The ids as one text array: the same statement text for every chunk size. */
    /** The ids as one text, joined by line feeds, which the dialect's claim splits (see postgresql/inbox.sql). */
    private void claimArray(Connection c, String consumer, List<String> ids, long retentionMs, Set<String> claimed) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql.get("inbox_claim"))) {
            ps.setString(1, consumer);
            ps.setLong(2, retentionMs);
            ps.setString(3, joinedIds(ids));
            readIds(ps, claimed);
        }
    }

    /**
     * Takes the locks of {@code ids} for {@code consumer} to the end of the transaction: one statement
     * that orders them itself (PostgreSQL's advisory locks), or the ids' buckets sorted, a statement
     * per {@value Inbox#CLAIM_CHUNK} (MariaDB's lock table).
     */
    void lockIds(Connection c, String consumer, List<String> ids) throws SQLException {
        String statement = sql.get("inbox_lock");
        if (!statement.contains(ROWS)) {
            long locked;
            try (PreparedStatement ps = c.prepareStatement(statement)) {
                ps.setString(1, consumer);
                ps.setString(2, joinedIds(ids));
                try (ResultSet rs = ps.executeQuery()) {
                    locked = rs.next() ? rs.getLong(1) : 0;
                }
            }
            if (locked == 0) {
                // The statement locks nothing under a stricter isolation: the claim's snapshot would be
                // older than the lock and could miss the row of the delivery it waited for.
                throw new IllegalStateException("the partitioned inbox needs READ COMMITTED on PostgreSQL; the connection runs a stricter isolation");
            }
            return;
        }
        int[] buckets = ids.stream().mapToInt(id -> bucket(consumer, id)).distinct().sorted().toArray();
        for (int from = 0; from < buckets.length; from += Inbox.CLAIM_CHUNK) {
            int n = Math.min(buckets.length - from, Inbox.CLAIM_CHUNK);
            try (PreparedStatement ps = c.prepareStatement(sql.expand("inbox_lock", ROWS, "(?)", n))) {
                for (int i = 0; i < n; i++) {
                    ps.setInt(i + 1, buckets[from + i]);
                }
                ps.executeUpdate();
            }
        }
    }

    /** The lock table's bucket of an id: 16 bits of a CRC-32 of consumer and id (a consumer name holds no line feed). */
    static int bucket(String consumer, String id) {
        CRC32 crc = new CRC32();
        crc.update((consumer + ID_SEPARATOR + id).getBytes(StandardCharsets.UTF_8));
        return (int) (crc.getValue() & 0xFFFF);
    }

    static String joinedIds(List<String> ids) {
        int length = ids.size();
        for (String id : ids) {
            length += id.length();
        }
        StringBuilder joined = new StringBuilder(length);
        for (String id : ids) {
            // Every entry point checks ids (InboxNames.checkMessageId); a line feed here would split one id in two.
            if (id.indexOf(ID_SEPARATOR) >= 0) {
                throw new IllegalArgumentException("message id has a control character");
            }
            joined.append(joined.length() == 0 ? "" : "\n").append(id);
        }
        return joined.toString();
    }

    private static void readIds(PreparedStatement ps, Set<String> claimed) throws SQLException {
        try (ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                claimed.add(rs.getString(1));
            }
        }
    }

    /** Why ids were not claimed: quarantined, or else duplicates (processed, dropped, or purged since). */
    Map<String, InboxOutcome> notClaimed(Connection c, String consumer, List<String> ids) throws SQLException {
        Map<String, InboxOutcome> out = new HashMap<>();
        states(c, consumer, ids).forEach((id, state) ->
                out.put(id, state == Inbox.STATE_QUARANTINED ? InboxOutcome.quarantined(id, 0, null) : InboxOutcome.duplicate(id)));
        for (String id : ids) {
            out.putIfAbsent(id, InboxOutcome.duplicate(id));
        }
        return out;
    }

    /**
     * Whether {@code message}, answered {@code QUARANTINED}, carries another payload than the one the
     * quarantine holds under its id. A delivery known by its id only (no payload) is not compared.
     */
    boolean quarantinedPayloadDiffers(Connection c, String consumer, InboxMessage message) throws SQLException {
        if (message.payloadLength() == 0) {
            return false;
        }
        try (PreparedStatement ps = c.prepareStatement(sql.get("inbox_find_quarantined"))) {
            ps.setString(1, consumer);
            ps.setString(2, message.id());
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() && !Arrays.equals(rs.getBytes("payload"), message.payloadUnsafe());
            }
        }
    }

    /** The inbox state of each of {@code ids} that has an inbox row. */
    private Map<String, Integer> states(Connection c, String consumer, List<String> ids) throws SQLException {
        Map<String, Integer> out = new HashMap<>();
        for (int from = 0; from < ids.size(); from += Inbox.CLAIM_CHUNK) {
            List<String> chunk = ids.subList(from, Math.min(ids.size(), from + Inbox.CLAIM_CHUNK));
            try (PreparedStatement ps = c.prepareStatement(sql.expand("inbox_states", "{ids}", "?", chunk.size()))) {
                ps.setString(1, consumer);
                for (int i = 0; i < chunk.size(); i++) {
                    ps.setString(i + 2, chunk.get(i));
                }
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        out.put(rs.getString(1), rs.getInt(2));
                    }
                }
            }
        }
        return out;
    }

    /**
     * Counts the failed attempt and quarantines at the limit; commits. The connection's last transaction
     * was rolled back. A message the inbox holds as processed or dropped is not counted ({@code DUPLICATE}):
     * its transaction committed after all (the COMMIT reached the database, only its answer was lost) or
     * another delivery processed it; counting it would keep its payload and could quarantine it.
     *
     * <p>{@code deliveries} is the broker's own count of the message's deliveries, this one included (0 if
     * the broker keeps none). It also counts deliveries that died with their consumer before the inbox
     * could count them, so the message is quarantined once either count reaches the limit, before a
     * broker-side delivery limit above it drops the message.
     */
    InboxOutcome countFailure(Connection c, String consumer, InboxMessage message, Throwable cause, long deliveries)
            throws SQLException {
        String id = message.id();
        try {
            Integer state = states(c, consumer, List.of(id)).get(id);
            if (state != null && state != Inbox.STATE_QUARANTINED) {
                c.commit();
                ListenerCalls.run("duplicate", () -> listener.duplicate(consumer, id));
                return InboxOutcome.duplicate(id);
            }
            int counted;
            try (PreparedStatement ps = c.prepareStatement(sql.get("inbox_count_failure"))) {
                ps.setString(1, consumer);
                ps.setString(2, id);
                ps.setLong(3, retention.toMillis());
                ps.setString(4, cause.getClass().getName());
                ps.setString(5, errorText(cause));
                ps.setBytes(6, message.payloadUnsafe());
                ps.setString(7, MessageHeaders.encode(message.headers()));
                try (ResultSet rs = ps.executeQuery()) {
                    counted = rs.next() ? rs.getInt(1) : -1;
                }
            }
            if (counted < 0) {
                // Another delivery quarantined it meanwhile.
                c.commit();
                return InboxOutcome.quarantined(id, 0, cause);
            }
            int attempts = (int) Math.max(counted, Math.min(deliveries, Integer.MAX_VALUE));
            if (attempts >= maxAttempts && quarantineClaim(c, consumer, id) == 1) {
                update(c, "inbox_quarantine_mark", consumer, id);
                c.commit();
                ListenerCalls.run("quarantined", () -> listener.quarantined(consumer, id, attempts));
                return InboxOutcome.quarantined(id, attempts, cause);
            }
            // Below the limit, or another delivery of the message was processed meanwhile.
            c.commit();
            ListenerCalls.run("failed", () -> listener.failed(consumer, id, attempts, cause));
            return InboxOutcome.failed(id, attempts, cause);
        } catch (SQLException | RuntimeException e) {
            e.addSuppressed(cause);
            throw e;
        }
    }

    /** The inbox row that stops every later delivery of a quarantined message; 0 if another delivery was processed meanwhile. */
    private int quarantineClaim(Connection c, String consumer, String id) throws SQLException {
        if (partitioned) {
            lockIds(c, consumer, List.of(id));
        }
        return update(c, "inbox_quarantine_claim", consumer, id);
    }

    int update(Connection c, String statement, Object... params) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql.get(statement))) {
            for (int i = 0; i < params.length; i++) {
                ps.setObject(i + 1, params[i]);
            }
            return ps.executeUpdate();
        }
    }

    /**
     * What the quarantine records of {@code cause} beside its class: the chosen text, bounded. A
     * function that fails must not keep the attempt from being counted, so only its failure's class
     * is recorded then.
     */
    String errorText(Throwable cause) {
        String text;
        try {
            text = errorText.apply(cause);
        } catch (RuntimeException e) {
            text = "(quarantineError's function threw " + e.getClass().getName() + ")";
        }
        return FailureText.truncate(text, Inbox.MAX_ERROR_MESSAGE);
    }
}
