package dev.idem.jdbc;

import dev.idem.LeaseLostException;
import dev.idem.StoredResponse;
import dev.idem.jdbc.ClaimRows.Claimed;
import dev.idem.jdbc.internal.CommitCoalescer;
import dev.idem.jdbc.internal.CommitCoalescer.Answer;
import dev.idem.jdbc.internal.HeaderCodec;
import dev.idem.jdbc.support.SqlStatements;
import dev.idem.jdbc.support.StoreCalls;
import dev.idem.jdbc.support.Transactions;
import dev.idem.jdbc.support.Transactions.SqlWork;
import dev.idem.spi.ClaimRequest;
import dev.idem.spi.RecordKey;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The key store's coalesced commits: concurrent claims go to the database together, one multi-row
 * {@code claim_many} and one commit; concurrent completions likewise, as one JDBC batch of
 * {@code complete} and one commit (see {@link CommitCoalescer} for who waits for whom). A caller alone
 * runs the store's ordinary path, unchanged.
 *
 * <p>A batch's rows go in key order, so two batches over the same keys (two instances of a service)
 * lock them in the same order. When a batch's transaction fails, an outage (no connection, a dropped
 * one) fails every caller with the store's retry-safe exception; any other failure may be one caller's
 * own bad row, so each caller then runs its entry alone and gets its own outcome.
 */
final class CoalescedWrites {
    /** Entries per batch at most: one statement of 64 rows, a few kilobytes of parameters. */
    static final int MAX_BATCH = 64;
    /**
     * Writes of one kind in flight at once before callers queue: one, the natural group commit (more
     * measured no better; see docs/performance.md, "Coalesced commits").
     */
    static final int IN_FLIGHT = 1;

    /** One caller's completion. */
    record Completion(RecordKey id, long token, StoredResponse response, Duration retention) {
    }

    private static final Comparator<RecordKey> KEY_ORDER = Comparator.comparing((RecordKey id) -> id.scope().value())
            .thenComparing(id -> id.key().value());

    private final SqlStatements sql;
    private final StoreCalls calls;
    private final CommitCoalescer<ClaimRequest, Claimed> claims;
    private final CommitCoalescer<Completion, Void> completions;

    CoalescedWrites(SqlStatements sql, StoreCalls calls, CommitCoalescer.Single<ClaimRequest, Claimed> claimAlone,
            CommitCoalescer.Single<Completion, Void> completeAlone) {
        this.sql = sql;
        this.calls = calls;
        this.claims = new CommitCoalescer<>(MAX_BATCH, IN_FLIGHT, ClaimRequest::id, claimAlone, this::claimBatch);
        this.completions = new CommitCoalescer<>(MAX_BATCH, IN_FLIGHT, Completion::id, completeAlone, this::completeBatch);
    }

    Claimed claim(ClaimRequest request) {
        return claims.submit(request);
    }

    void complete(Completion completion) {
        completions.submit(completion);
    }

    /** Callers whose claims wait for the next batch (a test's way to see a batch form). */
    int waitingClaims() {
        return claims.waiting();
    }

    /** Callers whose completions wait for the next batch. */
    int waitingCompletions() {
        return completions.waiting();
    }

    // ---- claims ---------------------------------------------------------------------------------

    private List<Answer<Claimed>> claimBatch(List<ClaimRequest> requests) {
        List<ClaimRequest> ordered = new ArrayList<>(requests);
        ordered.sort(Comparator.comparing(ClaimRequest::id, KEY_ORDER));
        List<RecordKey> ids = requests.stream().map(ClaimRequest::id).toList();
        // One statement: it commits by itself (under auto-commit) before any caller hears it acquired.
        return judged("claim", ids, true, c -> {
            Map<RecordKey, Claimed> settled = claimMany(c, ordered);
            List<Answer<Claimed>> answers = new ArrayList<>(requests.size());
            for (ClaimRequest request : requests) {
                Claimed claimed = settled.get(request.id());
                // No row back: the record is live; the caller's own claim answers it (in progress, replay or mismatch).
                answers.add(claimed == null ? Answer.alone() : Answer.of(claimed));
            }
            return answers;
        });
    }

    private Map<RecordKey, Claimed> claimMany(Connection c, List<ClaimRequest> ordered) throws SQLException {
        Map<String, ClaimRequest> byName = new HashMap<>();
        try (PreparedStatement ps = c.prepareStatement(sql.expand("claim_many", "{rows}", sql.get("claim_many_row"), ordered.size()))) {
            int i = 1;
            for (ClaimRequest request : ordered) {
                ps.setString(i++, request.id().scope().value());
                ps.setString(i++, request.id().key().value());
                ps.setString(i++, request.fingerprint().value());
                ps.setLong(i++, request.lease().toMillis());
                ps.setLong(i++, request.retention().toMillis());
                byName.put(name(request.id().scope().value(), request.id().key().value()), request);
            }
            Map<RecordKey, Claimed> out = new HashMap<>();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    ClaimRequest request = byName.get(name(rs.getString(1), rs.getString(2)));
                    if (request != null) {
                        out.put(request.id(), ClaimRows.claimRow(rs, 3, request));
                    }
                }
            }
            return out;
        }
    }

    private static String name(String scope, String key) {
        return scope + "\u0000" + key;
    }

    // ---- completions ----------------------------------------------------------------------------

    private List<Answer<Void>> completeBatch(List<Completion> entries) {
        List<Integer> order = new ArrayList<>(entries.size());
        for (int i = 0; i < entries.size(); i++) {
            order.add(i);
        }
        order.sort(Comparator.comparing(i -> entries.get(i).id(), KEY_ORDER));
        List<RecordKey> ids = entries.stream().map(Completion::id).toList();
        return judged("complete", ids, false, c -> {
            int[] counts = completeMany(c, entries, order);
            List<Answer<Void>> answers = new ArrayList<>(Collections.nCopies(entries.size(), null));
            for (int n = 0; n < order.size(); n++) {
                Completion entry = entries.get(order.get(n));
                // complete always changes a row it matches (state 0 to 1), so 0 rows means a stale token on every dialect.
                answers.set(order.get(n), counts[n] > 0 ? Answer.of(null)
                        : Answer.failed(LeaseLostException.staleToken(entry.id().scope(), entry.token(), "complete")));
            }
            return answers;
        });
    }

    private int[] completeMany(Connection c, List<Completion> entries, List<Integer> order) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql.get("complete"))) {
            for (int index : order) {
                Completion entry = entries.get(index);
                StoredResponse response = entry.response();
                ps.setInt(1, response.status());
                ps.setString(2, HeaderCodec.encode(response.headers()));
                ps.setBytes(3, response.body());
                ps.setLong(4, entry.retention().toMillis());
                ps.setString(5, entry.id().scope().value());
                ps.setString(6, entry.id().key().value());
                ps.setLong(7, entry.token());
                ps.addBatch();
            }
            int[] counts = ps.executeBatch();
            for (int count : counts) {
                if (count < 0) {
                    // The driver did not say which rows matched (SUCCESS_NO_INFO): roll back, each caller runs alone.
                    throw new SQLException("the driver reported no row counts for a batch of completions");
                }
            }
            return counts;
        }
    }

    // ---- failures -------------------------------------------------------------------------------

    /**
     * Runs a batch in one transaction. An outage (or a transaction the database kept rolling back)
     * fails every caller with the store's retry-safe {@link dev.idem.StoreException}, each naming its
     * own scope; any other failure rolled the whole batch back and may be one caller's bad row, so
     * every caller runs its entry alone.
     */
    private <R> List<Answer<R>> judged(String operation, List<RecordKey> ids, boolean oneStatement, SqlWork<List<Answer<R>>> work) {
        try {
            return oneStatement ? calls.oneStatementJudged(work) : calls.inTransactionJudged(work);
        } catch (SQLException e) {
            List<Answer<R>> answers = new ArrayList<>(ids.size());
            boolean everyone = SqlFailures.isTransient(e);
            for (RecordKey id : ids) {
                answers.add(everyone ? Answer.failed(calls.failure(operation, id.scope(), e)) : Answer.alone());
            }
            return answers;
        }
    }
}
