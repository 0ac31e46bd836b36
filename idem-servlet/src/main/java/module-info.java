/**
 * idem's Jakarta Servlet filter: {@code Idempotency-Key} semantics for any Servlet 6 container.
 *
 * <p>{@code dev.idem.servlet} is the API; the request and response wrappers, the problem writer and
 * the JSON canonicaliser live in {@code dev.idem.servlet.internal}, which is not exported.
 */
module dev.idem.servlet {
    requires transitive dev.idem.core;
    requires transitive jakarta.servlet;
    requires tools.jackson.core;

    exports dev.idem.servlet;
}
