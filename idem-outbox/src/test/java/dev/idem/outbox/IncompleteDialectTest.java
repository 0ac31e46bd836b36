package dev.idem.outbox;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.jdbc.Dialect;
import dev.idem.jdbc.support.SqlStatements;
import dev.idem.testing.RealServices;
import dev.idem.testing.TestDatabase;
import org.junit.jupiter.api.Test;

/** An outbox whose dialect's files lack a statement it or its relay runs is refused at {@code build()}. */
class IncompleteDialectTest {

    @Test
    void outboxWithoutItsHeadsLeaseIsRefused() {
        try (TestDatabase db = RealServices.sqlite()) {
            Outbox.Builder builder = Outbox.builder(db.dataSource()).dialect(Dialect.MARIADB)
                    .sqlSource(SqlStatements.Source.of(Outbox.class).without("outbox_lease_heads"));
            assertThatThrownBy(builder::build).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("MariaDB").hasMessageContaining("dev/idem/outbox/mariadb/outbox.sql")
                    .hasMessageContaining("'outbox_lease_heads'");
        }
    }
}
