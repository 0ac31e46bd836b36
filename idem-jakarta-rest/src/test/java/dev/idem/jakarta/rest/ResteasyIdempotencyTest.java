package dev.idem.jakarta.rest;

/** The contract on RESTEasy 7.0 (Undertow). */
class ResteasyIdempotencyTest extends IdempotencyContract {
    ResteasyIdempotencyTest() {
        super(ResteasyServer::start);
    }
}
