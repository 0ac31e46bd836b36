package dev.idem.jakarta.rest;

/** The contract on Jersey 4.0 (JDK HTTP server). */
class JerseyIdempotencyTest extends IdempotencyContract {
    JerseyIdempotencyTest() {
        super(JerseyServer::start);
    }
}
