package dev.idem.demo.payments;

import dev.idem.spi.IdempotencyStore;
import dev.idem.testing.IdempotencyStoreContract;

/**
 * The memory-store variant's store keeps the whole store contract while its process lives: what makes
 * it broken is only that a restart forgets every key (which the lab's memory-store row shows).
 */
class ForgetfulMemoryStoreTest extends IdempotencyStoreContract {

    @Override
    protected IdempotencyStore newStore() {
        return new ForgetfulMemoryStore();
    }

    @Override
    protected void closeStore() {
        // the heap is the store
    }
}
