package dev.idem.redis;

import dev.idem.spi.IdempotencyStore;
import dev.idem.testing.IdempotencyStoreContract;
import dev.idem.testing.StoreAdministrationContract;

/** The store contract on a real Redis Cluster of three masters and three replicas, replica acknowledgement on. */
class RedisClusterStoreContractTest extends IdempotencyStoreContract implements StoreAdministrationContract {
    private final String prefix = RedisTests.freshPrefix();
    private RedisIdempotencyStore redisStore;

    @Override
    protected IdempotencyStore newStore() {
        redisStore = RedisClusterTests.storeKeepingKeys(prefix);
        return redisStore;
    }

    @Override
    protected void closeStore() {
        if (redisStore != null) {
            redisStore.close();
            RedisClusterTests.deleteKeys(prefix);
        }
    }
}
