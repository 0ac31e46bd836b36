package dev.idem.webflux;

import dev.idem.jdbc.JdbcIdempotencyStore;
import dev.idem.redis.PersistenceCheck;
import dev.idem.redis.RedisIdempotencyStore;
import dev.idem.spi.IdempotencyStore;
import dev.idem.testing.RealServices;
import dev.idem.testing.TestDatabase;
import io.lettuce.core.RedisClient;
import java.util.UUID;

/** The real stores the filter is tested on: PostgreSQL through the JDBC store (HikariCP), and Redis. */
enum StoreBackend {
    POSTGRESQL {
        @Override
        Opened open() {
            TestDatabase db = RealServices.postgres();
            JdbcIdempotencyStore store = JdbcIdempotencyStore.builder(db.dataSource()).build();
            store.migrate();
            return new Opened(store, db::close);
        }
    },
    REDIS {
        @Override
        Opened open() {
            RedisClient client = RedisClient.create(RealServices.redisUri());
            // The machine's Redis persists nothing on purpose; what is tested is the filter, not the server's disk.
            RedisIdempotencyStore store = RedisIdempotencyStore.builder(client)
                    .keyPrefix("idem-webflux-" + UUID.randomUUID().toString().substring(0, 8) + ":")
                    .persistenceCheck(PersistenceCheck.SKIP).build();
            return new Opened(store, () -> {
                store.close();
                client.shutdown();
            });
        }
    };

    abstract Opened open();

    /** A store and what closes it. */
    record Opened(IdempotencyStore store, Runnable closer) implements AutoCloseable {
        @Override
        public void close() {
            closer.run();
        }
    }
}
