package dev.idem.docs.samples;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.Sweeper;
import dev.idem.inbox.Inbox;
import dev.idem.jdbc.DurabilityCheck;
import dev.idem.jdbc.JdbcIdempotencyStore;
import dev.idem.outbox.Outbox;
import dev.idem.testing.RealServices;
import dev.idem.testing.TestDatabase;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The admin API's sample run as printed, on PostgreSQL. */
class AdminSamplesTest {

    @Test
    @DisplayName("operations-admin: the admin servlet is built over the store, a consumer, an outbox and a sweeper")
    void adminServlet() {
        try (TestDatabase db = RealServices.postgres()) {
            JdbcIdempotencyStore store = JdbcIdempotencyStore.builder(db.dataSource()).durabilityCheck(DurabilityCheck.WARN).build();
            store.migrate();
            Inbox inbox = Inbox.builder(store).build();
            inbox.migrate();
            Outbox outbox = Outbox.builder(store).build();
            outbox.migrate();
            try (Sweeper sweeper = Sweeper.builder(store).build()) {
                assertThat(AdminSamples.adminServlet(store, inbox, (c, m) -> { }, outbox, sweeper)).isNotNull();
            }
        }
    }
}
