/**
 * An HTTP client over {@code java.net.http} that keeps one idempotency key across all retries of a
 * logical request. Depends on the JDK only.
 *
 * <p>{@code dev.idem.client} is the API; everything under {@code dev.idem.client.internal} is hidden.
 */
module dev.idem.client {
    requires transitive java.net.http;

    exports dev.idem.client;
}
