package dev.idem.inbox;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.jdbc.Dialect;
import dev.idem.jdbc.support.SqlStatements;
import dev.idem.testing.RealServices;
import dev.idem.testing.TestDatabase;
import org.junit.jupiter.api.Test;

/** An inbox whose dialect's files lack a statement it runs is refused at {@code build()}, naming dialect, file and statement. */
class IncompleteDialectTest {

    @Test
    void inboxWithoutItsPurgeIsRefused() {
        try (TestDatabase db = RealServices.sqlite()) {
            Inbox.Builder builder = Inbox.builder(db.dataSource()).dialect(Dialect.POSTGRESQL)
                    .sqlSource(SqlStatements.Source.of(Inbox.class).without("inbox_purge_failures"));
            assertThatThrownBy(builder::build).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("PostgreSQL").hasMessageContaining("dev/idem/inbox/postgresql/inbox.sql")
                    .hasMessageContaining("'inbox_purge_failures'");
        }
    }
}
