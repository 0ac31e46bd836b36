package dev.idem.servlet.internal;

import dev.idem.http.RequestBodies;
import dev.idem.http.RequestFingerprints;
import jakarta.servlet.AsyncContext;
import jakarta.servlet.ReadListener;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletInputStream;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import jakarta.servlet.http.Part;
import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.URLDecoder;
import java.nio.charset.Charset;
import java.nio.charset.IllegalCharsetNameException;
import java.nio.charset.StandardCharsets;
import java.nio.charset.UnsupportedCharsetException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.Enumeration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The request as the handler sees it on a covered route: the body was read (bounded) by the filter
 * to fingerprint it, so this wrapper serves it again from memory through {@link #getInputStream()}
 * or {@link #getReader()}, and parses form parameters from it, since the container can no longer
 * read the consumed stream.
 *
 * <p>Asynchronous processing is refused: the response must be complete when the filter chain
 * returns, because it is stored before it is sent. Multipart parts are refused too: the container
 * parses them from the stream it no longer has.
 */
public final class BufferedRequest extends HttpServletRequestWrapper {
    private static final int READ_CHUNK = 8192;
    private static final String FORM = "application/x-www-form-urlencoded";

    private final byte[] body;
    private ServletInputStream stream;
    private BufferedReader reader;
    private Map<String, String[]> formParameters;

    public BufferedRequest(HttpServletRequest request, byte[] body) {
        super(request);
        this.body = body;
    }

    /**
     * Reads {@code in} to its end, or returns null as soon as more than {@code max} bytes arrived
     * (the rest is left unread: the caller answers 413 without buffering an unbounded body).
     */
    public static byte[] readBounded(InputStream in, int max, long declaredLength) throws IOException {
        return RequestBodies.readBounded(in, max, declaredLength);
    }

    /** The media type of a Content-Type value: without parameters, trimmed, lower-cased; "" if absent. */
    public static String mediaType(String contentType) {
        return RequestFingerprints.mediaType(contentType);
    }

    @Override
    public ServletInputStream getInputStream() {
        if (reader != null) {
            throw new IllegalStateException("getReader() was already called for this request");
        }
        if (stream == null) {
            stream = new BodyStream(body);
        }
        return stream;
    }

    @Override
    public BufferedReader getReader() {
        if (stream != null) {
            throw new IllegalStateException("getInputStream() was already called for this request");
        }
        if (reader == null) {
            reader = new BufferedReader(new InputStreamReader(new BodyStream(body), readerCharset()));
        }
        return reader;
    }

    private Charset readerCharset() {
        String encoding = getCharacterEncoding();
        if (encoding != null) {
            try {
                return Charset.forName(encoding);
            } catch (IllegalCharsetNameException | UnsupportedCharsetException e) {
                // Fall through to the defaults below, as containers do for an unknown charset.
            }
        }
        String type = mediaType(getContentType());
        // JSON has no charset parameter and is UTF-8 (RFC 8259); elsewhere the Servlet default applies.
        return type.equals("application/json") || type.endsWith("+json") ? StandardCharsets.UTF_8 : StandardCharsets.ISO_8859_1;
    }

    @Override
    public int getContentLength() {
        return body.length;
    }

    @Override
    public long getContentLengthLong() {
        return body.length;
    }

    // ---- parameters: the container cannot parse a form from the stream the filter consumed ----

    private boolean formBody() {
        return body.length > 0 && FORM.equals(mediaType(getContentType()));
    }

    private Map<String, String[]> formParameters() {
        if (formParameters == null) {
            Map<String, List<String>> collected = new LinkedHashMap<>();
            // Query parameters come before body parameters (Servlet specification, 3.1.1).
            addPairs(collected, getQueryString(), StandardCharsets.UTF_8);
            String encoding = getCharacterEncoding();
            Charset charset;
            try {
                charset = encoding == null ? StandardCharsets.UTF_8 : Charset.forName(encoding);
            } catch (IllegalCharsetNameException | UnsupportedCharsetException e) {
                charset = StandardCharsets.UTF_8;
            }
            addPairs(collected, new String(body, StandardCharsets.ISO_8859_1), charset);
            Map<String, String[]> result = new LinkedHashMap<>();
            collected.forEach((name, values) -> result.put(name, values.toArray(new String[0])));
            formParameters = Collections.unmodifiableMap(result);
        }
        return formParameters;
    }

    /** Adds the decoded pairs of a query or form body; also a {@link MemoryRequest}'s query. */
    static void addPairs(Map<String, List<String>> into, String encoded, Charset charset) {
        if (encoded == null || encoded.isEmpty()) {
            return;
        }
        for (String pair : encoded.split("&")) {
            if (pair.isEmpty()) {
                continue;
            }
            int eq = pair.indexOf('=');
            String name = decode(eq < 0 ? pair : pair.substring(0, eq), charset);
            String value = eq < 0 ? "" : decode(pair.substring(eq + 1), charset);
            into.computeIfAbsent(name, n -> new ArrayList<>()).add(value);
        }
    }

    /** Percent-decodes; the raw text is kept when the encoding is broken rather than failing the request. */
    static String decode(String text, Charset charset) {
        // Bytes were widened from ISO-8859-1 above; re-narrow them before decoding in the real charset.
        String raw = new String(text.getBytes(StandardCharsets.ISO_8859_1), charset);
        try {
            return URLDecoder.decode(raw, charset);
        } catch (IllegalArgumentException e) {
            return raw;
        }
    }

    @Override
    public String getParameter(String name) {
        if (!formBody()) {
            return super.getParameter(name);
        }
        String[] values = formParameters().get(name);
        return values == null ? null : values[0];
    }

    @Override
    public Map<String, String[]> getParameterMap() {
        return formBody() ? formParameters() : super.getParameterMap();
    }

    @Override
    public Enumeration<String> getParameterNames() {
        return formBody() ? Collections.enumeration(formParameters().keySet()) : super.getParameterNames();
    }

    @Override
    public String[] getParameterValues(String name) {
        if (!formBody()) {
            return super.getParameterValues(name);
        }
        String[] values = formParameters().get(name);
        return values == null ? null : values.clone();
    }

    // ---- what a buffered, synchronous request cannot offer ----

    @Override
    public Collection<Part> getParts() throws ServletException {
        throw new ServletException("multipart bodies are not available on a route covered by the idempotency filter;"
                + " exclude the route with a RoutePolicyResolver");
    }

    @Override
    public Part getPart(String name) throws ServletException {
        return getParts().stream().findFirst().orElse(null);
    }

    @Override
    public boolean isAsyncSupported() {
        return false;
    }

    @Override
    public AsyncContext startAsync() {
        throw asyncRefused();
    }

    @Override
    public AsyncContext startAsync(ServletRequest request, ServletResponse response) {
        throw asyncRefused();
    }

    private static IllegalStateException asyncRefused() {
        return new IllegalStateException("asynchronous processing is not supported on a route covered by the idempotency filter:"
                + " the response is stored before it is sent, so it must be complete when the filter chain returns");
    }

    private static final class BodyStream extends ServletInputStream {
        private final byte[] body;
        private int position;

        BodyStream(byte[] body) {
            this.body = body;
        }

        @Override
        public int read() {
            return position < body.length ? body[position++] & 0xFF : -1;
        }

        @Override
        public int read(byte[] target, int offset, int length) {
            if (length == 0) {
                return 0;
            }
            if (position >= body.length) {
                return -1;
            }
            int n = Math.min(length, body.length - position);
            System.arraycopy(body, position, target, offset, n);
            position += n;
            return n;
        }

        @Override
        public int available() {
            return body.length - position;
        }

        @Override
        public boolean isFinished() {
            return position >= body.length;
        }

        @Override
        public boolean isReady() {
            return true;
        }

        @Override
        public void setReadListener(ReadListener listener) {
            throw asyncRefused();
        }
    }
}
