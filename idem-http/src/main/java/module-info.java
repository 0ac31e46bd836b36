/**
 * The HTTP semantics of idempotency keys without a web stack, for every idem HTTP filter (Servlet,
 * WebFlux, Jakarta REST): the key header, the answer to each outcome and failure
 * ({@code HttpAnswers}), problem+json bodies, replay headers and the request fingerprint
 * ({@code RequestFingerprints}). The canonical-JSON writer lives in {@code dev.idem.http.internal},
 * which is not exported.
 */
module dev.idem.http {
    requires transitive dev.idem.core;
    requires tools.jackson.core;

    exports dev.idem.http;
}
