package dev.idem.jdbc;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.jdbc.support.SqlStatements;
import dev.idem.testing.RealServices;
import dev.idem.testing.TestDatabase;
import org.junit.jupiter.api.Test;

/**
 * A dialect whose files lack a statement the store or its transactional mode runs is refused at
 * {@code build()}, naming the dialect, the file and the statement, not at the statement's first use.
 * The dialect is set explicitly: building only needs a connection, and the SQL is not run.
 */
class IncompleteDialectTest {
    private static final SqlStatements.Source FILES = SqlStatements.Source.of(Dialect.class);

    @Test
    void storeWithoutItsThreeStepClaimIsRefused() {
        try (TestDatabase db = RealServices.sqlite()) {
            JdbcIdempotencyStore.Builder builder = JdbcIdempotencyStore.builder(db.dataSource()).dialect(Dialect.MARIADB)
                    .sqlSource(FILES.without("claim_taken"));
            assertThatThrownBy(builder::build).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("MariaDB").hasMessageContaining("dev/idem/jdbc/mariadb/statements.sql")
                    .hasMessageContaining("'claim_taken'");
        }
    }

    @Test
    void transactionalModeWithoutItsCallerTransactionGuardIsRefused() {
        try (TestDatabase db = RealServices.sqlite()) {
            JdbcIdempotencyStore.Builder builder = JdbcIdempotencyStore.builder(db.dataSource()).dialect(Dialect.MARIADB)
                    .sqlSource(FILES.without("transaction_has_work"));
            assertThatThrownBy(builder::build).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("MariaDB").hasMessageContaining("dev/idem/jdbc/mariadb/statements.sql")
                    .hasMessageContaining("'transaction_has_work'");
        }
    }

    @Test
    void storeWithoutItsMigrationLockIsRefused() {
        try (TestDatabase db = RealServices.sqlite()) {
            JdbcIdempotencyStore.Builder builder = JdbcIdempotencyStore.builder(db.dataSource()).dialect(Dialect.POSTGRESQL)
                    .sqlSource(FILES.without("lock_migrations"));
            assertThatThrownBy(builder::build).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("PostgreSQL").hasMessageContaining("dev/idem/jdbc/postgresql/statements.sql")
                    .hasMessageContaining("'lock_migrations'");
        }
    }
}
