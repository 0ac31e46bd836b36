package dev.idem.redis;

import dev.idem.spi.IdempotencyStore;
import dev.idem.testing.CompleterContract;
import dev.idem.testing.StoreFixture;

class RedisCompleterContractTest extends StoreFixture implements CompleterContract {
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
