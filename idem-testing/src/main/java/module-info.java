/** Contract suites every idem store must pass, a non-durable store for unit tests, and the real-service resolver. */
module dev.idem.testing {
    requires transitive dev.idem.core;
    requires transitive java.sql;
    requires transitive org.junit.jupiter.api;
    requires org.assertj.core;
    requires com.zaxxer.hikari;

    exports dev.idem.testing;
}
