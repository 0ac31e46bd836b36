/**
 * idem's Spring WebFlux filter: {@code Idempotency-Key} semantics for any WebFlux application.
 */
module dev.idem.webflux {
    requires transitive dev.idem.http;
    requires transitive spring.web;
    requires spring.core;
    requires transitive reactor.core;
    requires org.reactivestreams;

    exports dev.idem.webflux;
}
