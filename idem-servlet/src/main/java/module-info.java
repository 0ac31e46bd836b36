/**
 * idem's Jakarta Servlet filter: {@code Idempotency-Key} semantics for any Servlet 6 container.
 *
 * <p>{@code dev.idem.servlet} is the Servlet filter, built on the stack-neutral HTTP rules of
 * {@code dev.idem.http} (module idem-http); the request and response wrappers and the Servlet writer
 * of answers live in {@code dev.idem.servlet.internal}, which is not exported.
 */
module dev.idem.servlet {
    requires transitive dev.idem.http;
    requires transitive jakarta.servlet;

    exports dev.idem.servlet;
}
