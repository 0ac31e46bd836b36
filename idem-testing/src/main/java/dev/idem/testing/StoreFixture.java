package dev.idem.testing;

import dev.idem.spi.IdempotencyStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/**
 * A fresh store on a real server for every test, released after it: where each of this module's
 * store-backed contracts starts. A backend's test says how to make and release its store.
 */
public abstract class StoreFixture {
    /** The store of the running test. */
    protected IdempotencyStore store;

    /** The store of the running test: what {@link StoreAdministrationContract} runs against. */
    public IdempotencyStore store() {
        return store;
    }

    /** A new, empty store on a real server (tables created). */
    protected abstract IdempotencyStore newStore();

    /** Releases what {@link #newStore()} made. */
    protected abstract void closeStore();

    @BeforeEach
    void openStore() {
        store = newStore();
    }

    @AfterEach
    void dropStore() {
        closeStore();
    }
}
