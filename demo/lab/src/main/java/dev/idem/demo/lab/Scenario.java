package dev.idem.demo.lab;

/**
 * One row of the lab's table: a client strategy against a server variant under a fault; for a
 * messaging row, also the mode of the ledger consumer that applies the service's payment events.
 *
 * @param consumer null for a row about the HTTP path only
 */
public record Scenario(String id, ClientStrategy strategy, ServerVariant variant, Fault fault, Expectation expectation,
                       ConsumerMode consumer) {
    /** A row about the HTTP path only. */
    public Scenario(String id, ClientStrategy strategy, ServerVariant variant, Fault fault, Expectation expectation) {
        this(id, strategy, variant, fault, expectation, null);
    }

    /** Whether the service publishes payment events and a ledger consumer applies them. */
    public boolean messaging() {
        return consumer != null;
    }
}
