package dev.idem.redis;

import dev.idem.spi.IdempotencyStore;
import dev.idem.testing.IdemEngineContract;
import java.util.ArrayList;
import java.util.List;

/** The engine contract on a real Redis Cluster of three masters and three replicas, replica acknowledgement on. */
class RedisClusterEngineContractTest extends IdemEngineContract {
    private final String prefix = RedisTests.freshPrefix();
    private final List<RedisIdempotencyStore> opened = new ArrayList<>();
    private RedisIdempotencyStore restarted;

    /**
     * Also builds the store {@link #reopenStore()} hands out, so that building it (a connection and
     * the scripts) is not timed by tests whose leases last a few hundred milliseconds.
     */
    @Override
    protected IdempotencyStore newStore() {
        RedisIdempotencyStore first = open();
        restarted = open();
        return first;
    }

    /** A second store on its own connection over the same keys, as a restarted process would build. */
    @Override
    protected IdempotencyStore reopenStore() {
        return restarted;
    }

    @Override
    protected void closeStore() {
        if (!opened.isEmpty()) {
            opened.forEach(RedisIdempotencyStore::close);
            RedisClusterTests.deleteKeys(prefix);
        }
    }

    private RedisIdempotencyStore open() {
        RedisIdempotencyStore store = RedisClusterTests.store(prefix);
        opened.add(store);
        return store;
    }
}
