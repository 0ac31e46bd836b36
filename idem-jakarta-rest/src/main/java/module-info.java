/**
 * Idempotency keys for Jakarta REST (JAX-RS) resources: the {@code @Idempotent} name binding and the
 * {@code IdempotencyFeature} that registers its filters, on any Jakarta REST 4 runtime (Jersey,
 * RESTEasy). Every answer and fingerprint comes from {@code dev.idem.http}; the filters live in
 * {@code dev.idem.jakarta.rest.internal}, which is not exported (the runtime instantiates nothing
 * from it: the feature registers instances).
 */
module dev.idem.jakarta.rest {
    requires transitive dev.idem.http;
    requires transitive jakarta.ws.rs;
    requires static jakarta.annotation; // @Priority, read by the runtime if present

    exports dev.idem.jakarta.rest;
}
