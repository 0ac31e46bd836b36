package dev.idem.demo.ledger;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.demo.ledger.CardBalances.Balance;
import dev.idem.inbox.Inbox;
import dev.idem.inbox.InboxOutcome;
import dev.idem.jdbc.Dialect;
import dev.idem.testing.RealServices;
import dev.idem.testing.TestDatabase;
import dev.idem.upserts.UpsertOutcome;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** The balances on the three databases: set with each append, guarded by the newest entry id they include. */
class CardBalancesTest {
    private static final PaymentEvent FIRST = new PaymentEvent("pay_1", "card-1", 1250, "EUR");
    private static final PaymentEvent SECOND = new PaymentEvent("pay_2", "card-1", 500, "EUR");

    static Stream<Arguments> databases() {
        return Stream.of(
                Arguments.of("SQLite", Dialect.SQLITE, (Supplier<TestDatabase>) RealServices::sqlite),
                Arguments.of("PostgreSQL", Dialect.POSTGRESQL, (Supplier<TestDatabase>) RealServices::postgres),
                Arguments.of("MariaDB", Dialect.MARIADB, (Supplier<TestDatabase>) RealServices::mariadb));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("databases")
    void aRedeliveredEventThroughTheInboxLeavesTheBalanceUnchanged(String name, Dialect dialect, Supplier<TestDatabase> open)
            throws SQLException {
        try (TestDatabase db = open.get()) {
            new LedgerTable(db.dataSource(), dialect).migrate();
            Inbox inbox = Inbox.builder(db.dataSource()).dialect(dialect).build();
            inbox.migrate();

            assertThat(deliver(inbox, "m-1", FIRST)).isEqualTo(InboxOutcome.Status.PROCESSED);
            assertThat(deliver(inbox, "m-2", SECOND)).isEqualTo(InboxOutcome.Status.PROCESSED);
            List<Balance> before = balances(db);
            assertThat(before).containsExactly(new Balance("card-1", "EUR", 1750, 2));

            assertThat(deliver(inbox, "m-1", FIRST)).isEqualTo(InboxOutcome.Status.DUPLICATE);
            assertThat(balances(db)).isEqualTo(before);
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("databases")
    void aBalanceFromAnOlderViewOfTheLedgerIsStaleAndCannotMoveItBack(String name, Dialect dialect, Supplier<TestDatabase> open)
            throws SQLException {
        try (TestDatabase db = open.get()) {
            new LedgerTable(db.dataSource(), dialect).migrate();
            try (Connection c = db.dataSource().getConnection()) {
                LedgerTable.append(c, FIRST, "m-1");
                LedgerTable.append(c, SECOND, "m-2");
                // What a late or retried write for the first event would carry: the balance after entry 1.
                assertThat(CardBalances.write(c, new Balance("card-1", "EUR", 1250, 1))).isEqualTo(UpsertOutcome.STALE);
                // The same view again: no change either.
                assertThat(CardBalances.refresh(c, "card-1", "EUR")).contains(UpsertOutcome.STALE);
                assertThat(CardBalances.all(c)).containsExactly(new Balance("card-1", "EUR", 1750, 2));
            }
        }
    }

    private static InboxOutcome.Status deliver(Inbox inbox, String messageId, PaymentEvent event) {
        return inbox.process("ledger", messageId, (connection, message) -> LedgerTable.append(connection, event, messageId)).status();
    }

    private static List<Balance> balances(TestDatabase db) throws SQLException {
        try (Connection c = db.dataSource().getConnection()) {
            return CardBalances.all(c);
        }
    }
}
