/**
 * idem's Jakarta Servlet filter: {@code Idempotency-Key} semantics for any Servlet 6 container.
 *
 * <p>{@code dev.idem.http} is the HTTP semantics without a web stack (the key header, the answer to
 * each outcome and failure, problem+json bodies, replay headers), for any filter to call;
 * {@code dev.idem.servlet} is the Servlet filter built on it; the request and response wrappers, the
 * Servlet writer of answers and the JSON canonicaliser live in {@code dev.idem.servlet.internal},
 * which is not exported.
 */
module dev.idem.servlet {
    requires transitive dev.idem.core;
    requires transitive jakarta.servlet;
    requires tools.jackson.core;

    exports dev.idem.http;
    exports dev.idem.servlet;
}
