package dev.idem.kafka;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.jdbc.Dialect;
import dev.idem.jdbc.support.SqlStatements;
import dev.idem.testing.RealServices;
import dev.idem.testing.TestDatabase;
import org.junit.jupiter.api.Test;

/** An offset store whose dialect's files lack a statement it runs is refused at {@code build()}, naming dialect, file and statement. */
class IncompleteDialectTest {

    @Test
    void offsetStoreWithoutItsReadIsRefused() {
        try (TestDatabase db = RealServices.sqlite()) {
            KafkaOffsetStore.Builder builder = KafkaOffsetStore.builder(db.dataSource()).dialect(Dialect.MARIADB)
                    .sqlSource(SqlStatements.Source.of(KafkaOffsetStore.class).without("offset_read"));
            assertThatThrownBy(builder::build).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("MariaDB").hasMessageContaining("dev/idem/kafka/mariadb/offsets.sql")
                    .hasMessageContaining("'offset_read'");
        }
    }
}
