package dev.idem.http;

import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * One HTTP answer of the idempotency layer, independent of any web stack: a status, header writes in
 * order and a body. A Servlet filter, a WebFlux {@code WebFilter} or a Jakarta REST filter writes it
 * the same way: each header {@linkplain Header#append() appended} to the response's values or set in
 * their place, then the body — unless the status has none ({@link #hasContent()}).
 *
 * @param body never null; not copied (an answer is made and written once)
 */
public record HttpAnswer(int status, List<Header> headers, byte[] body) {
    public HttpAnswer {
        headers = List.copyOf(headers);
        Objects.requireNonNull(body, "body");
    }

    /**
     * Whether the status carries content: 1xx, 204 and 304 have none, and must not announce a length
     * (RFC 9110 §8.6).
     */
    public boolean hasContent() {
        return status >= 200 && status != 204 && status != 304;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof HttpAnswer other && status == other.status && headers.equals(other.headers)
                && Arrays.equals(body, other.body);
    }

    @Override
    public int hashCode() {
        return 31 * (31 * status + headers.hashCode()) + Arrays.hashCode(body);
    }

    /** Shows the status, the header writes and the body's length; never the body. */
    @Override
    public String toString() {
        return "HttpAnswer[status=" + status + ", headers=" + headers + ", body=" + body.length + " bytes]";
    }

    /** One header write: set (replacing what the response holds under that name) or appended. */
    public record Header(String name, String value, boolean append) {
        public Header {
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(value, "value");
        }

        public static Header set(String name, String value) {
            return new Header(name, value, false);
        }

        public static Header add(String name, String value) {
            return new Header(name, value, true);
        }
    }
}
