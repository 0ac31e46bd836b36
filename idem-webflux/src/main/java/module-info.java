/**
 * idem's Spring WebFlux filter: {@code Idempotency-Key} semantics for any WebFlux application; and
 * its WebClient filter, which retries unsafe requests with one key by idem-client's rules.
 */
module dev.idem.webflux {
    requires transitive dev.idem.http;
    requires transitive spring.web;
    requires transitive spring.webflux;
    requires transitive dev.idem.client;
    requires transitive spring.core;
    requires transitive reactor.core;
    requires org.reactivestreams;

    exports dev.idem.webflux;
}
