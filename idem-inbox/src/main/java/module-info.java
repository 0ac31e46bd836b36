/** idem's inbox over JDBC: process each message once, quarantine repeated failures, and the consumer loop every broker's consumer is built on. */
module dev.idem.inbox {
    requires transitive dev.idem.jdbc;

    exports dev.idem.inbox;
    exports dev.idem.inbox.consumer;
}
