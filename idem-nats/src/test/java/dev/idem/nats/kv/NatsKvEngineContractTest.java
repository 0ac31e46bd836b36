package dev.idem.nats.kv;

import dev.idem.spi.IdempotencyStore;
import dev.idem.testing.IdemEngineContract;
import dev.idem.testing.NatsCluster;
import io.nats.client.Connection;

/** The engine contract on a three-node JetStream cluster, the bucket replicated three ways. */
class NatsKvEngineContractTest extends IdemEngineContract {
    private Connection connection;
    private Connection second;
    private String bucket;
    private NatsKvIdempotencyStore first;
    private NatsKvIdempotencyStore restarted;

    /** Also builds the store {@link #reopenStore()} hands out, on a connection of its own, so that building it is not timed. */
    @Override
    protected IdempotencyStore newStore() {
        connection = NatsKvTests.connect(NatsCluster.shared());
        second = NatsKvTests.connect(NatsCluster.shared());
        bucket = NatsKvTests.freshBucket();
        first = NatsKvTests.replicatedStore(connection, bucket);
        restarted = NatsKvTests.replicatedStore(second, bucket);
        return first;
    }

    /** A second store on its own connection over the same bucket, as a restarted process would build. */
    @Override
    protected IdempotencyStore reopenStore() {
        return restarted;
    }

    @Override
    protected void closeStore() {
        if (connection != null) {
            first.close();
            restarted.close();
            NatsKvTests.deleteBucket(connection, bucket);
            NatsKvTests.close(second);
            NatsKvTests.close(connection);
        }
    }
}
