/** idem's inbox over JDBC: process each message once, quarantine repeated failures, and the broker-batch step. */
module dev.idem.inbox {
    requires transitive dev.idem.jdbc;

    exports dev.idem.inbox;
    exports dev.idem.inbox.consumer;
}
