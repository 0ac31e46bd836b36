package dev.idem.upserts;

import dev.idem.testing.Concurrently;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.jdbc.Dialect;
import dev.idem.jdbc.testing.Backends;
import dev.idem.testing.TestDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The {@link Upserts} contract on a real database; one tiny subclass per backend. */
abstract class UpsertsContract {
    protected TestDatabase db;
    protected Upserts upserts;

    protected abstract Backends backend();

    @BeforeEach
    void openDatabase() throws SQLException {
        db = backend().open();
        try (Connection c = db.dataSource().getConnection()) {
            upserts = Upserts.of(c);
            execute(c, "CREATE TABLE ledger_entry (consumer TEXT NOT NULL, message_id TEXT NOT NULL, amount INTEGER NOT NULL, PRIMARY KEY (consumer, message_id))");
            execute(c, "CREATE TABLE balance (account TEXT PRIMARY KEY, amount INTEGER, version BIGINT NOT NULL)");
            // Reserved words as names: quoting must make them work.
            execute(c, "CREATE TABLE \"order\" (\"key\" TEXT PRIMARY KEY, \"value\" TEXT, \"user\" TEXT)");
        }
    }

    @AfterEach
    void closeDatabase() {
        db.close();
    }

    private void execute(Connection c, String statement) throws SQLException {
        try (Statement st = c.createStatement()) {
            st.execute(backend().sql(statement));
        }
    }

    private <T> T inConnection(SqlCall<T> call) throws SQLException {
        try (Connection c = db.dataSource().getConnection()) {
            return call.run(c);
        }
    }

    @FunctionalInterface
    interface SqlCall<T> {
        T run(Connection c) throws SQLException;
    }

    private List<String> balance(String account) throws SQLException {
        try (Connection c = db.dataSource().getConnection();
             PreparedStatement ps = c.prepareStatement("SELECT amount, version FROM balance WHERE account = ?")) {
            ps.setString(1, account);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? List.of(String.valueOf(rs.getObject(1)), String.valueOf(rs.getLong(2))) : List.of();
            }
        }
    }

    private long count(String query) throws SQLException {
        try (Connection c = db.dataSource().getConnection(); Statement st = c.createStatement(); ResultSet rs = st.executeQuery(query)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private static Map<String, Object> entry(String messageId, int amount) {
        Map<String, Object> row = new LinkedHashMap<>();
        row.put("consumer", "ledger");
        row.put("message_id", messageId);
        row.put("amount", amount);
        return row;
    }

    private static Map<String, Object> balanceRow(String account, Integer amount, long version) {
        Map<String, Object> row = new LinkedHashMap<>();
        row.put("account", account);
        row.put("amount", amount);
        row.put("version", version);
        return row;
    }

    private static <T> List<T> concurrently(int threads, Callable<T> task) throws Exception {
        return Concurrently.call(threads, task);
    }

    @Test
    @DisplayName("insertOrIgnore on a composite natural key: the first write inserts, a repeat is ignored and changes nothing")
    void insertOrIgnore() throws Exception {
        List<String> key = List.of("consumer", "message_id");

        boolean first = inConnection(c -> upserts.insertOrIgnore(c, "ledger_entry", key, entry("m-1", 100)));
        boolean repeat = inConnection(c -> upserts.insertOrIgnore(c, "ledger_entry", key, entry("m-1", 999)));
        boolean other = inConnection(c -> upserts.insertOrIgnore(c, "ledger_entry", key, entry("m-2", 5)));

        assertThat(first).isTrue();
        assertThat(repeat).isFalse();
        assertThat(other).isTrue();
        assertThat(count("SELECT sum(amount) FROM ledger_entry")).isEqualTo(105);
    }

    @Test
    @DisplayName("insertOrUpdate without a version: inserted, then updated with the new values")
    void insertOrUpdateWithoutVersion() throws Exception {
        UpsertOutcome inserted = inConnection(c -> upserts.insertOrUpdate(c, "balance", List.of("account"), balanceRow("acc", 10, 1)));
        UpsertOutcome updated = inConnection(c -> upserts.insertOrUpdate(c, "balance", List.of("account"), balanceRow("acc", 20, 1)));

        assertThat(inserted).isEqualTo(UpsertOutcome.INSERTED);
        assertThat(updated).isEqualTo(UpsertOutcome.UPDATED);
        assertThat(balance("acc")).containsExactly("20", "1");
    }

    @Test
    @DisplayName("insertOrUpdate with a version guard: newer applies, older and equal are STALE and change nothing")
    void versionGuard() throws Exception {
        List<UpsertOutcome> outcomes = new ArrayList<>();
        for (long[] write : new long[][] {{1, 100}, {3, 300}, {2, 200}, {3, 333}, {4, 400}}) {
            outcomes.add(inConnection(c -> upserts.insertOrUpdate(c, "balance", List.of("account"),
                    balanceRow("acc", (int) write[1], write[0]), "version")));
        }

        assertThat(outcomes).containsExactly(UpsertOutcome.INSERTED, UpsertOutcome.UPDATED, UpsertOutcome.STALE,
                UpsertOutcome.STALE, UpsertOutcome.UPDATED);
        assertThat(balance("acc")).containsExactly("400", "4");
    }

    @Test
    @DisplayName("NULL values are written; reserved words work as table and column names")
    void nullsAndReservedWords() throws Exception {
        Map<String, Object> order = new LinkedHashMap<>();
        order.put("key", "k1");
        order.put("value", null);
        order.put("user", "alice");

        UpsertOutcome inserted = inConnection(c -> upserts.insertOrUpdate(c, "order", List.of("key"), order));
        order.put("value", "v");
        UpsertOutcome updated = inConnection(c -> upserts.insertOrUpdate(c, "order", List.of("key"), order));
        UpsertOutcome withNull = inConnection(c -> upserts.insertOrUpdate(c, "balance", List.of("account"), balanceRow("nul", null, 1), "version"));

        assertThat(inserted).isEqualTo(UpsertOutcome.INSERTED);
        assertThat(updated).isEqualTo(UpsertOutcome.UPDATED);
        assertThat(withNull).isEqualTo(UpsertOutcome.INSERTED);
        assertThat(balance("nul")).containsExactly("null", "1");
        assertThat(count(backend().sql("SELECT count(*) FROM \"order\" WHERE \"value\" = 'v'"))).isEqualTo(1);
    }

    @Test
    @DisplayName("a conflicting upsert inside the caller's transaction does not abort it: a later write in it commits")
    void conflictDoesNotAbortTheTransaction() throws Exception {
        inConnection(c -> upserts.insertOrIgnore(c, "ledger_entry", List.of("consumer", "message_id"), entry("dup", 1)));
        try (Connection c = db.dataSource().getConnection()) {
            c.setAutoCommit(false);
            assertThat(upserts.insertOrIgnore(c, "ledger_entry", List.of("consumer", "message_id"), entry("dup", 2))).isFalse();
            assertThat(upserts.insertOrUpdate(c, "balance", List.of("account"), balanceRow("acc", 1, 1), "version")).isEqualTo(UpsertOutcome.INSERTED);
            assertThat(upserts.insertOrUpdate(c, "balance", List.of("account"), balanceRow("acc", 0, 1), "version")).isEqualTo(UpsertOutcome.STALE);
            assertThat(upserts.insertOrIgnore(c, "ledger_entry", List.of("consumer", "message_id"), entry("after", 3))).isTrue();
            c.commit();
            c.setAutoCommit(true);
        }
        assertThat(count("SELECT count(*) FROM ledger_entry")).isEqualTo(2);
        assertThat(balance("acc")).containsExactly("1", "1");
    }

    @Test
    @DisplayName("8 threads inserting one natural key at once: exactly one inserts")
    void concurrentInsertOrIgnore() throws Exception {
        List<Boolean> inserted = concurrently(8, () -> inConnection(c ->
                upserts.insertOrIgnore(c, "ledger_entry", List.of("consumer", "message_id"), entry("race", 1))));

        assertThat(inserted).filteredOn(b -> b).hasSize(1);
        assertThat(count("SELECT count(*) FROM ledger_entry")).isEqualTo(1);
    }

    @Test
    @DisplayName("8 threads writing versions 1-8 of one row at once: the newest wins, one insert, no error")
    void concurrentVersionedWrites() throws Exception {
        java.util.concurrent.atomic.AtomicInteger next = new java.util.concurrent.atomic.AtomicInteger();
        List<UpsertOutcome> outcomes = concurrently(8, () -> {
            int version = next.incrementAndGet();
            return inConnection(c -> upserts.insertOrUpdate(c, "balance", List.of("account"), balanceRow("hot", version * 10, version), "version"));
        });

        assertThat(outcomes).filteredOn(o -> o == UpsertOutcome.INSERTED).hasSize(1);
        assertThat(balance("hot")).containsExactly("80", "8");
    }

    @Test
    @DisplayName("bad identifiers and rows are refused before any SQL runs, naming the problem")
    void badInput() {
        Map<String, Object> row = entry("m", 1);
        List<String> key = List.of("consumer", "message_id");
        assertThatThrownBy(() -> inConnection(c -> upserts.insertOrIgnore(c, "ledger_entry; DROP TABLE balance", key, row)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("table name");
        assertThatThrownBy(() -> inConnection(c -> upserts.insertOrIgnore(c, "Ledger", key, row)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'Ledger'");
        assertThatThrownBy(() -> inConnection(c -> upserts.insertOrIgnore(c, "a.b.c", key, row)))
                .isInstanceOf(IllegalArgumentException.class);
        Map<String, Object> quoteInjection = new LinkedHashMap<>(row);
        quoteInjection.put("amount\" = 1; --", 5);
        assertThatThrownBy(() -> inConnection(c -> upserts.insertOrIgnore(c, "ledger_entry", key, quoteInjection)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("column name");
        assertThatThrownBy(() -> inConnection(c -> upserts.insertOrIgnore(c, "ledger_entry", List.of(), row)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("empty");
        assertThatThrownBy(() -> inConnection(c -> upserts.insertOrIgnore(c, "ledger_entry", List.of("consumer", "missing"), row)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'missing'");
        assertThatThrownBy(() -> inConnection(c -> upserts.insertOrUpdate(c, "balance", List.of("account"), balanceRow("a", 1, 1), "vers")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'vers'");
        assertThatThrownBy(() -> inConnection(c -> upserts.insertOrUpdate(c, "balance", List.of("account"), balanceRow("a", 1, 1), "account")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("key column");
        assertThatThrownBy(() -> inConnection(c -> upserts.insertOrUpdate(c, "ledger_entry", List.of("consumer", "message_id", "amount"), row)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("nothing to update");
        assertThatThrownBy(() -> inConnection(c -> upserts.insertOrIgnore(c, "ledger_entry", List.of("consumer", "consumer", "message_id"), row)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("repeats");
        assertThatThrownBy(() -> Upserts.of((Dialect) null)).isInstanceOf(NullPointerException.class);
    }

    @Test
    @DisplayName("a missing table or constraint is the database's error, raised as a SQLException to the caller")
    void databaseErrorsPropagate() {
        assertThatThrownBy(() -> inConnection(c -> upserts.insertOrIgnore(c, "no_such_table", List.of("id"), Map.of("id", 1))))
                .isInstanceOf(SQLException.class);
        assertThat(upserts.dialect()).isEqualTo(backend().dialect());
        assertThat(Upserts.of(upserts.dialect())).isSameAs(upserts);
    }
}
