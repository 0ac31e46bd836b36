package dev.idem.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.Fingerprint;
import dev.idem.IdemListener;
import dev.idem.IdempotencyKey;
import dev.idem.Scope;
import dev.idem.StoredResponse;
import dev.idem.Sweeper;
import dev.idem.jdbc.testing.Backends;
import dev.idem.spi.ClaimOutcome;
import dev.idem.spi.ClaimRequest;
import dev.idem.spi.RecordKey;
import dev.idem.testing.TestDatabase;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The sweeper on a real database: expired rows go in bounded batches, live rows stay. */
class SweeperOnRealStoreTest {
    private static final Scope SCOPE = Scope.of("sweeper", "POST /x");
    private static final Fingerprint FP = Fingerprint.builder().part("body", "x").build();

    @ParameterizedTest
    @EnumSource(Backends.class)
    void sweepsExpiredRecordsInBatchesAndKeepsLiveOnes(Backends backend) throws Exception {
        try (TestDatabase db = backend.open()) {
            JdbcIdempotencyStore store = Backends.migratedStore(db);
            for (int i = 0; i < 120; i++) {
                completed(store, "expired-" + i, Duration.ofMillis(1));
            }
            for (int i = 0; i < 7; i++) {
                completed(store, "live-" + i, Duration.ofHours(1));
            }
            Thread.sleep(20);
            AtomicInteger reported = new AtomicInteger();
            Sweeper sweeper = Sweeper.builder(store).batchSize(25).maxBatchesPerRun(2)
                    .listener(new IdemListener() {
                        @Override
                        public void purged(int count) {
                            reported.addAndGet(count);
                        }
                    }).build();

            assertThat(sweeper.sweepOnce()).as("a run stops after maxBatchesPerRun").isEqualTo(50);
            assertThat(rows(db)).isEqualTo(127 - 50);
            int rest = 0;
            for (int run = 0; run < 10; run++) {
                rest += sweeper.sweepOnce();
            }
            assertThat(rest).isEqualTo(70);
            assertThat(reported).hasValue(120);
            assertThat(rows(db)).isEqualTo(7);
            for (int i = 0; i < 7; i++) {
                assertThat(store.find(new RecordKey(SCOPE, IdempotencyKey.of("live-" + i)))).isPresent();
            }
        }
    }

    @ParameterizedTest
    @EnumSource(Backends.class)
    void scheduledSweeperKeepsTheTableBounded(Backends backend) throws Exception {
        try (TestDatabase db = backend.open()) {
            JdbcIdempotencyStore store = Backends.migratedStore(db);
            try (Sweeper sweeper = Sweeper.builder(store).interval(Duration.ofMillis(20)).batchSize(50).build().start()) {
                int maxRows = 0;
                long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
                for (int i = 0; i < 400; i++) {
                    completed(store, "steady-" + i, Duration.ofMillis(50));
                    if (i % 50 == 49) {
                        int written = i + 1;
                        maxRows = Math.max(maxRows, rows(db));
                        // Wait for the background sweeper to delete some expired row before writing on: a writer
                        // in a tight loop can starve it of SQLite's write lock, which is not what this test is about.
                        while (rows(db) >= written) {
                            assertThat(System.nanoTime()).as("the sweeper deleted nothing while rows were being written").isLessThan(deadline);
                            Thread.sleep(10);
                        }
                    }
                }
                assertThat(maxRows).as("the sweeper deleted rows while they were being written").isLessThan(400);
                while (rows(db) > 0 && System.nanoTime() < deadline) {
                    Thread.sleep(20);
                }
                assertThat(rows(db)).isZero();
            }
        }
    }

    private static void completed(JdbcIdempotencyStore store, String key, Duration retention) {
        RecordKey id = new RecordKey(SCOPE, IdempotencyKey.of(key));
        ClaimOutcome.Acquired acquired = (ClaimOutcome.Acquired) store.claim(new ClaimRequest(id, FP, Duration.ofSeconds(30), Duration.ofHours(1)));
        store.complete(id, acquired.token(), StoredResponse.of(200, new byte[] {1}), retention);
    }

    private static int rows(TestDatabase db) throws SQLException {
        try (Connection c = db.dataSource().getConnection(); Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT count(*) FROM idem_record")) {
            rs.next();
            return rs.getInt(1);
        }
    }
}
