package dev.idem.nats.kv;

import dev.idem.spi.IdempotencyStore;
import dev.idem.testing.IdempotencyStoreContract;
import dev.idem.testing.StoreAdministrationContract;
import dev.idem.testing.NatsCluster;
import io.nats.client.Connection;

/** The store contract on a three-node JetStream cluster, the bucket replicated three ways. */
class NatsKvStoreContractTest extends IdempotencyStoreContract implements StoreAdministrationContract {
    private Connection connection;
    private String bucket;
    private NatsKvIdempotencyStore kvStore;

    @Override
    protected IdempotencyStore newStore() {
        connection = NatsKvTests.connect(NatsCluster.shared());
        bucket = NatsKvTests.freshBucket();
        kvStore = NatsKvTests.replicatedStore(connection, bucket);
        return kvStore;
    }

    @Override
    protected void closeStore() {
        if (connection != null) {
            kvStore.close();
            NatsKvTests.deleteBucket(connection, bucket);
            NatsKvTests.close(connection);
        }
    }
}
