package dev.idem.redis;

import dev.idem.spi.IdempotencyStore;
import dev.idem.testing.IdemEngineContract;
import java.util.ArrayList;
import java.util.List;

class RedisEngineContractTest extends IdemEngineContract {
    private final String prefix = RedisTests.freshPrefix();
    private final List<RedisIdempotencyStore> opened = new ArrayList<>();

    @Override
    protected IdempotencyStore newStore() {
        return open();
    }

    /** A second store on its own connection over the same keys, as a restarted process would build. */
    @Override
    protected IdempotencyStore reopenStore() {
        return open();
    }

    @Override
    protected void closeStore() {
        if (!opened.isEmpty()) {
            opened.forEach(RedisIdempotencyStore::close);
            RedisTests.deleteKeys(prefix);
        }
    }

    private RedisIdempotencyStore open() {
        RedisIdempotencyStore store = RedisTests.store(prefix);
        opened.add(store);
        return store;
    }
}
