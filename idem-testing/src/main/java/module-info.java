/**
 * Contract suites every idem store must pass, a non-durable store for unit tests, the real-service
 * resolver, the broker suites' ledger table ({@code Ledger}), and a real Kafka broker
 * ({@code KafkaBroker}, which needs kafka-clients at run time).
 */
@SuppressWarnings("requires-automatic") // kafka-clients names no module: kafka.clients comes from its jar's file name
module dev.idem.testing {
    requires transitive dev.idem.core;
    requires transitive java.sql;
    requires transitive org.junit.jupiter.api;
    requires org.assertj.core;
    requires com.zaxxer.hikari;
    // Optional: only KafkaBroker needs it.
    requires static kafka.clients;

    exports dev.idem.testing;
}
