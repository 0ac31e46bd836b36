package dev.idem.admin;

import static dev.idem.admin.AdminServer.operator;
import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.spi.ClaimOutcome;
import dev.idem.spi.ClaimRequest;
import dev.idem.spi.IdempotencyRecord;
import dev.idem.spi.IdempotencyStore;
import dev.idem.spi.RecordKey;
import dev.idem.spi.RecoveryPoint;
import dev.idem.StoredResponse;
import dev.idem.testing.NonDurableMemoryStore;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The admin servlet over a store alone (no inbox, outbox or sweeper), and over a store that does not
 * implement the administration SPI: the parts it has answer, the others say so.
 */
class IdemAdminStoreOnlyTest {

    @Test
    @DisplayName("over a store alone: the overview lists no consumers, outboxes or sweepers; bad input is a 400 problem")
    void storeAlone() throws Exception {
        IdemAdmin admin = IdemAdmin.builder().store(new NonDurableMemoryStore()).build();
        try (AdminServer server = AdminServer.start(IdemAdminServlet.builder(admin).role("IDEM_ADMIN").build())) {
            var overview = server.get("api/overview", operator());
            assertThat(overview.statusCode()).isEqualTo(200);
            assertThat(overview.body()).contains("\"inbox\":[]", "\"outbox\":[]", "\"sweepers\":[]", "\"healthy\":true");
            assertThat(server.get("api/records/stuck?limit=0", operator()).statusCode()).isEqualTo(400);
            assertThat(server.get("api/records/stuck?limit=x", operator()).statusCode()).isEqualTo(400);
            assertThat(server.get("api/records?scope=a%20b", operator()).statusCode()).isEqualTo(400);
            assertThat(server.get("api/inbox?consumer=payments", operator()).statusCode()).isEqualTo(404);
            assertThat(server.post("api/records/release", "application/json", "[1]", operator()).statusCode()).isEqualTo(400);
            assertThat(server.get("api/nothing", operator()).statusCode()).isEqualTo(404);
        }
    }

    @Test
    @DisplayName("over a store without StoreAdministration: record reads and release answer 501, the store page says so")
    void storeWithoutAdministration() throws Exception {
        IdemAdmin admin = IdemAdmin.builder().store(new PlainStore(new NonDurableMemoryStore())).build();
        try (AdminServer server = AdminServer.start(IdemAdminServlet.builder(admin).role("IDEM_ADMIN").build())) {
            assertThat(server.get("api/records/stuck", operator()).statusCode()).isEqualTo(501);
            assertThat(server.post("api/records/release", "application/json",
                    "{\"scope\":\"a b\",\"key\":\"k\",\"token\":\"1\",\"force\":false}", operator()).statusCode()).isEqualTo(501);
            assertThat(server.get("api/store", operator()).body()).contains("\"administration\":false");
        }
    }

    /** A store that implements the SPI only, by delegation: what a third-party store without administration looks like. */
    private record PlainStore(IdempotencyStore store) implements IdempotencyStore {
        @Override
        public ClaimOutcome claim(ClaimRequest request) {
            return store.claim(request);
        }

        @Override
        public void checkpoint(RecordKey id, long token, RecoveryPoint point) {
            store.checkpoint(id, token, point);
        }

        @Override
        public void complete(RecordKey id, long token, StoredResponse response, Duration retention) {
            store.complete(id, token, response, retention);
        }

        @Override
        public void release(RecordKey id, long token) {
            store.release(id, token);
        }

        @Override
        public void renew(RecordKey id, long token, Duration lease) {
            store.renew(id, token, lease);
        }

        @Override
        public int purge(int limit) {
            return store.purge(limit);
        }

        @Override
        public Optional<IdempotencyRecord> find(RecordKey id) {
            return store.find(id);
        }
    }
}
