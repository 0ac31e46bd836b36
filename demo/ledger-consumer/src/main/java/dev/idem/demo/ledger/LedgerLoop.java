package dev.idem.demo.ledger;

/** A consumer loop writing the ledger, on a thread of its own. */
interface LedgerLoop extends AutoCloseable {

    /** {@code GET /health}: starting until the group assigned partitions, up after that, down if the loop died. */
    enum State { STARTING, UP, DOWN }

    /** Starts the loop on a new thread. */
    void start();

    State state();

    /** Stops the loop: offsets of what was written are committed, the Kafka consumer is closed. */
    @Override
    void close();
}
