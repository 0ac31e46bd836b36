/** idem's outbox over JDBC: events appended in the business transaction, and the relay that publishes them. */
module dev.idem.outbox {
    requires transitive dev.idem.jdbc;

    exports dev.idem.outbox;
}
