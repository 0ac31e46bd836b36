package dev.idem.redis;

import dev.idem.spi.IdempotencyStore;
import dev.idem.testing.IdempotencyStoreContract;
import dev.idem.testing.StoreAdministrationContract;

class RedisStoreContractTest extends IdempotencyStoreContract implements StoreAdministrationContract {
    private final String prefix = RedisTests.freshPrefix();
    private RedisIdempotencyStore redisStore;

    @Override
    protected IdempotencyStore newStore() {
        redisStore = RedisTests.storeKeepingKeys(prefix);
        return redisStore;
    }

    @Override
    protected void closeStore() {
        if (redisStore != null) {
            redisStore.close();
            RedisTests.deleteKeys(prefix);
        }
    }
}
