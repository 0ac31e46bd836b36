package dev.idem.demo.ledger;

import dev.idem.jdbc.Dialect;
import dev.idem.upserts.UpsertOutcome;
import dev.idem.upserts.Upserts;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The balance of each card and currency: table {@code card_balance}, the sum of the card's ledger
 * entries in that currency, with the newest entry id the sum includes as its version. A balance is
 * written as a state ({@code balance = the sum}, never {@code balance = balance + amount}) by an
 * upsert on the natural key {@code (card, currency)} that applies only if its version is newer than
 * the stored one: a write computed from an older view of the ledger (a redelivered or retried
 * event's, a slower writer's) is {@link UpsertOutcome#STALE} and cannot move the balance back, and
 * writing the same view again changes nothing.
 *
 * <p>It follows the ledger, deduplicated or not: in mode {@code no-inbox} a redelivered event appends
 * a second entry with a newer id, and the balance counts it, as the ledger does.
 */
final class CardBalances {
    static final String TABLE = "card_balance";
    private static final List<String> KEY = List.of("card", "currency");
    private static final String VERSION = "version";

    private static final String POSTGRESQL_DDL = """
            CREATE TABLE IF NOT EXISTS card_balance (
                card     text   NOT NULL,
                currency text   NOT NULL,
                balance  bigint NOT NULL,
                version  bigint NOT NULL,
                PRIMARY KEY (card, currency)
            )""";
    private static final String SQLITE_DDL = """
            CREATE TABLE IF NOT EXISTS card_balance (
                card     TEXT   NOT NULL,
                currency TEXT   NOT NULL,
                balance  BIGINT NOT NULL,
                version  BIGINT NOT NULL,
                PRIMARY KEY (card, currency)
            )""";
    // No other unique key: on MariaDB any duplicate-key error counts as "the row exists" (see Upserts).
    private static final String MARIADB_DDL = """
            CREATE TABLE IF NOT EXISTS card_balance (
                card     VARCHAR(255) NOT NULL,
                currency VARCHAR(16)  NOT NULL,
                balance  BIGINT       NOT NULL,
                version  BIGINT       NOT NULL,
                PRIMARY KEY (card, currency)
            ) ENGINE = InnoDB""";
    /** Keeps each refresh's sum to the card's own entries. */
    static final String LEDGER_INDEX = "CREATE INDEX IF NOT EXISTS ledger_entry_card ON ledger_entry (card, currency)";
    private static final String SUM =
            "SELECT SUM(amount), MAX(entry_id) FROM ledger_entry WHERE card = ? AND currency = ?";
    private static final String SELECT_ALL = "SELECT card, currency, balance, version FROM card_balance ORDER BY card, currency";

    /** One row of {@code card_balance}. */
    record Balance(String card, String currency, long balance, long version) {
    }

    private CardBalances() {
    }

    static String ddl(Dialect dialect) {
        return switch (dialect) {
            case POSTGRESQL -> POSTGRESQL_DDL;
            case MARIADB -> MARIADB_DDL;
            case SQLITE -> SQLITE_DDL;
        };
    }

    /**
     * Sets the balance of {@code card} in {@code currency} to the sum of its entries as this
     * transaction sees them, in the caller's transaction (the caller commits).
     *
     * @return what the upsert did; empty if the card has no entries in that currency
     */
    static Optional<UpsertOutcome> refresh(Connection connection, String card, String currency) throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement(SUM)) {
            ps.setString(1, card);
            ps.setString(2, currency);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                long newest = rs.getLong(2);
                if (rs.wasNull()) {
                    return Optional.empty();
                }
                return Optional.of(write(connection, new Balance(card, currency, rs.getLong(1), newest)));
            }
        }
    }

    /** Writes {@code balance} unless the stored row's version is the same or newer. */
    static UpsertOutcome write(Connection connection, Balance balance) throws SQLException {
        Map<String, Object> row = new LinkedHashMap<>();
        row.put("card", balance.card());
        row.put("currency", balance.currency());
        row.put("balance", balance.balance());
        row.put(VERSION, balance.version());
        return Upserts.of(connection).insertOrUpdate(connection, TABLE, KEY, row, VERSION);
    }

    /** Every balance, by card and currency. */
    static List<Balance> all(Connection connection) throws SQLException {
        List<Balance> balances = new ArrayList<>();
        try (PreparedStatement ps = connection.prepareStatement(SELECT_ALL); ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                balances.add(new Balance(rs.getString(1), rs.getString(2), rs.getLong(3), rs.getLong(4)));
            }
        }
        return balances;
    }
}
