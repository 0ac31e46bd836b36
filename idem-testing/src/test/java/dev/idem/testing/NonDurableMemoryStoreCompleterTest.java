package dev.idem.testing;

import dev.idem.spi.IdempotencyStore;

/** The completer contract on the in-memory store, on the system clock. */
class NonDurableMemoryStoreCompleterTest extends StoreFixture implements CompleterContract {

    @Override
    protected IdempotencyStore newStore() {
        return new NonDurableMemoryStore();
    }

    @Override
    protected void closeStore() {
    }
}
