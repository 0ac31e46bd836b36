package dev.idem.servlet.internal;

import dev.idem.StoredResponse;
import jakarta.servlet.ServletOutputStream;
import jakarta.servlet.WriteListener;
import jakarta.servlet.http.HttpServletResponse;
import jakarta.servlet.http.HttpServletResponseWrapper;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.nio.charset.Charset;
import java.nio.charset.IllegalCharsetNameException;
import java.nio.charset.StandardCharsets;
import java.nio.charset.UnsupportedCharsetException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The response as the handler sees it on a covered route. Nothing reaches the client while the
 * handler runs: the body is buffered here, the response is never committed, and the filter stores
 * the result before it {@link #sendToClient() sends} it (lock key → effect → store → send).
 *
 * <p>Status and headers go to the wrapped response, which stays uncommitted, so the container's own
 * rules for content type, character encoding and cookies apply unchanged; the stored copy reads them
 * back. {@code Content-Length} from the handler is ignored: it is recomputed from the buffered body.
 * {@code sendError} and {@code sendRedirect} are recorded, not performed, until the response is sent.
 */
public final class CapturingResponse extends HttpServletResponseWrapper {
    /** Set on a stored response whose body was over the cap and left out. */
    public static final String BODY_OMITTED_HEADER = "Idempotent-Body-Omitted";
    /** Set on every replayed response. */
    public static final String REPLAYED_HEADER = "Idempotent-Replayed";
    /**
     * Set by a handler to decline storage of this response ({@code no}); kept here, never passed to
     * the wrapped response, so it reaches neither the client nor the store.
     */
    public static final String STORE_HEADER = "Idempotent-Store";

    /**
     * Never stored, so never replayed: cookies belong to the first caller's session; hop-by-hop
     * headers (RFC 9110 §7.6.1) describe one connection; {@code Date} is the time of sending;
     * {@code Content-Length} is recomputed; the idem headers are added fresh on replay.
     */
    private static final Set<String> NOT_STORED = caseInsensitive(
            "Set-Cookie", "Set-Cookie2",
            "Connection", "Keep-Alive", "Proxy-Authenticate", "Proxy-Authorization", "TE", "Trailer",
            "Transfer-Encoding", "Upgrade",
            "Date", "Content-Length",
            REPLAYED_HEADER, BODY_OMITTED_HEADER, STORE_HEADER);

    private final HttpServletResponse response;
    private final ByteArrayOutputStream body = new ByteArrayOutputStream();
    private ServletOutputStream stream;
    private PrintWriter writer;
    private String writerCharset;
    private boolean closed;
    private int errorStatus = -1;
    private String errorMessage;
    private boolean storageDeclined;
    /** The headers earlier filters had set before the handler ran, restored by {@link #discard()}. */
    private final Map<String, List<String>> headersBefore;

    public CapturingResponse(HttpServletResponse response) {
        super(response);
        this.response = response;
        this.headersBefore = allHeaders(response);
    }

    private static Map<String, List<String>> allHeaders(HttpServletResponse response) {
        Map<String, List<String>> headers = new LinkedHashMap<>();
        Set<String> seen = new TreeSet<>(String.CASE_INSENSITIVE_ORDER);
        for (String name : response.getHeaderNames()) {
            if (seen.add(name)) {
                headers.put(name, new ArrayList<>(response.getHeaders(name)));
            }
        }
        return headers;
    }

    private static Set<String> caseInsensitive(String... names) {
        Set<String> set = new TreeSet<>(String.CASE_INSENSITIVE_ORDER);
        set.addAll(List.of(names));
        return Collections.unmodifiableSet(set);
    }

    /** Whether a header of this name is left out of stored responses. */
    public static boolean stored(String headerName) {
        return !NOT_STORED.contains(headerName);
    }

    // ---- body ---------------------------------------------------------------------------------

    @Override
    public ServletOutputStream getOutputStream() {
        if (writer != null) {
            throw new IllegalStateException("getWriter() was already called for this response");
        }
        if (stream == null) {
            stream = new CaptureStream();
        }
        return stream;
    }

    @Override
    public PrintWriter getWriter() {
        if (stream != null) {
            throw new IllegalStateException("getOutputStream() was already called for this response");
        }
        if (writer == null) {
            writerCharset = getCharacterEncoding();
            Charset charset = charset(writerCharset);
            writerCharset = charset.name();
            // As the container would on getWriter(): the charset becomes explicit in Content-Type.
            super.setCharacterEncoding(writerCharset);
            writer = new PrintWriter(new OutputStreamWriter(new CaptureStream(), charset), false);
        }
        return writer;
    }

    private static Charset charset(String name) {
        if (name != null) {
            try {
                return Charset.forName(name);
            } catch (IllegalCharsetNameException | UnsupportedCharsetException e) {
                // The container would reject it later; the Servlet default keeps the capture going.
            }
        }
        return StandardCharsets.ISO_8859_1;
    }

    @Override
    public void setCharacterEncoding(String charset) {
        if (writer == null) {
            super.setCharacterEncoding(charset);
        }
    }

    @Override
    public void setContentType(String type) {
        super.setContentType(type);
        if (writer != null) {
            // After getWriter() the encoding is fixed (Servlet spec); keep the header true to the bytes.
            super.setCharacterEncoding(writerCharset);
        }
    }

    @Override
    public void flushBuffer() {
        // Flushing would commit; the response must stay unsent until it is stored.
        if (writer != null) {
            writer.flush();
        }
    }

    @Override
    public boolean isCommitted() {
        return closed;
    }

    @Override
    public void setBufferSize(int size) {
        // The whole body is buffered regardless.
    }

    @Override
    public void resetBuffer() {
        if (closed) {
            throw new IllegalStateException("the response was already committed (sendError or sendRedirect)");
        }
        if (writer != null) {
            writer.flush();
        }
        body.reset();
    }

    @Override
    public void reset() {
        if (closed) {
            throw new IllegalStateException("the response was already committed (sendError or sendRedirect)");
        }
        super.reset();
        if (writer != null) {
            writer.flush();
        }
        body.reset();
        storageDeclined = false;
    }

    // ---- length: recomputed from the buffered body ---------------------------------------------

    @Override
    public void setContentLength(int length) {
    }

    @Override
    public void setContentLengthLong(long length) {
    }

    @Override
    public void setHeader(String name, String value) {
        if (STORE_HEADER.equalsIgnoreCase(name)) {
            storageDeclined = declines(value);
        } else if (!"Content-Length".equalsIgnoreCase(name)) {
            super.setHeader(name, value);
        }
    }

    @Override
    public void addHeader(String name, String value) {
        if (STORE_HEADER.equalsIgnoreCase(name)) {
            storageDeclined |= declines(value);
        } else if (!"Content-Length".equalsIgnoreCase(name)) {
            super.addHeader(name, value);
        }
    }

    private static boolean declines(String value) {
        return value != null && "no".equalsIgnoreCase(value.trim());
    }

    /** Whether the handler declined storage of this response with {@code Idempotent-Store: no}. */
    public boolean storageDeclined() {
        return storageDeclined;
    }

    @Override
    public void setIntHeader(String name, int value) {
        if (!"Content-Length".equalsIgnoreCase(name)) {
            super.setIntHeader(name, value);
        }
    }

    @Override
    public void addIntHeader(String name, int value) {
        if (!"Content-Length".equalsIgnoreCase(name)) {
            super.addIntHeader(name, value);
        }
    }

    // ---- error and redirect: recorded now, performed on send ---------------------------------

    @Override
    public void sendError(int status) {
        sendError(status, null);
    }

    @Override
    public void sendError(int status, String message) {
        ensureOpen();
        resetBuffer();
        super.setStatus(status);
        errorStatus = status;
        errorMessage = message;
        closed = true;
    }

    @Override
    public void sendRedirect(String location) {
        sendRedirect(location, SC_FOUND, true);
    }

    @Override
    public void sendRedirect(String location, boolean clearBuffer) {
        sendRedirect(location, SC_FOUND, clearBuffer);
    }

    @Override
    public void sendRedirect(String location, int status) {
        sendRedirect(location, status, true);
    }

    @Override
    public void sendRedirect(String location, int status, boolean clearBuffer) {
        ensureOpen();
        if (status < 300 || status > 399) {
            throw new IllegalArgumentException("a redirect status must be 3xx, was " + status);
        }
        if (clearBuffer) {
            resetBuffer();
        }
        super.setStatus(status);
        // Sent as given: RFC 9110 allows a relative Location, and the replay must carry the same one.
        super.setHeader("Location", location);
        closed = true;
    }

    private void ensureOpen() {
        if (closed) {
            throw new IllegalStateException("the response was already committed (sendError or sendRedirect)");
        }
    }

    // ---- after the handler ---------------------------------------------------------------------

    /**
     * What to store: the status, the storable headers as the container holds them, and the body —
     * or, when the body is over {@code maxBodyBytes}, an empty body and
     * {@code Idempotent-Body-Omitted: true}, so a retry learns the outcome instead of re-executing.
     */
    public StoredResponse toStored(int maxBodyBytes) {
        if (writer != null) {
            writer.flush();
        }
        Map<String, List<String>> headers = storedHeaders();
        byte[] bytes = errorStatus >= 0 ? new byte[0] : body.toByteArray();
        if (bytes.length > maxBodyBytes) {
            headers.put(BODY_OMITTED_HEADER, List.of("true"));
            bytes = new byte[0];
        }
        return StoredResponse.of(response.getStatus(), headers, bytes);
    }

    private Map<String, List<String>> storedHeaders() {
        Map<String, List<String>> headers = new LinkedHashMap<>();
        Set<String> seen = new TreeSet<>(String.CASE_INSENSITIVE_ORDER);
        for (String name : response.getHeaderNames()) {
            if (!seen.add(name) || !stored(name)) {
                continue;
            }
            Collection<String> values = response.getHeaders(name);
            if (!values.isEmpty()) {
                headers.put(name, new ArrayList<>(values));
            }
        }
        // Some containers (Tomcat) keep the content type outside the header list until commit.
        String contentType = response.getContentType();
        if (contentType != null && !seen.contains("Content-Type")) {
            headers.put("Content-Type", List.of(contentType));
        }
        return headers;
    }

    /**
     * Drops what the handler set on the wrapped response — status, headers (its cookies included),
     * content type — and puts back the headers earlier filters had set, so the filter can answer
     * something else instead. Only while the wrapped response is not committed.
     */
    public void discard() {
        response.reset();
        headersBefore.forEach((name, values) -> {
            for (String value : values) {
                response.addHeader(name, value);
            }
        });
    }

    /** Sends what the handler produced, in full, to this (first) caller. */
    public void sendToClient() throws IOException {
        if (writer != null) {
            writer.flush();
        }
        if (errorStatus >= 0) {
            // The container renders its error page for this caller; a replay gets the status and headers.
            if (errorMessage == null) {
                response.sendError(errorStatus);
            } else {
                response.sendError(errorStatus, errorMessage);
            }
            return;
        }
        writeBody(response, response.getStatus(), body.toByteArray());
    }

    /** Writes a stored response to a fresh (uncommitted) response, marked as a replay. */
    public static void replay(StoredResponse stored, HttpServletResponse response) throws IOException {
        response.setStatus(stored.status());
        stored.headers().forEach((name, values) -> {
            boolean first = true;
            for (String value : values) {
                if (first) {
                    response.setHeader(name, value);
                    first = false;
                } else {
                    response.addHeader(name, value);
                }
            }
        });
        response.setHeader(REPLAYED_HEADER, "true");
        writeBody(response, stored.status(), stored.body());
    }

    private static void writeBody(HttpServletResponse response, int status, byte[] bytes) throws IOException {
        // 1xx, 204 and 304 have no content, and must not announce a length (RFC 9110 §8.6).
        boolean contentAllowed = status >= 200 && status != 204 && status != 304;
        if (contentAllowed) {
            response.setContentLength(bytes.length);
            if (bytes.length > 0) {
                response.getOutputStream().write(bytes);
            }
        }
        response.flushBuffer();
    }

    private final class CaptureStream extends ServletOutputStream {
        @Override
        public void write(int b) {
            if (!closed) {
                body.write(b);
            }
        }

        @Override
        public void write(byte[] bytes, int offset, int length) {
            if (!closed) {
                body.write(bytes, offset, length);
            }
        }

        @Override
        public boolean isReady() {
            return true;
        }

        @Override
        public void setWriteListener(WriteListener listener) {
            throw new IllegalStateException("non-blocking output is not supported on a route covered by the idempotency filter");
        }
    }
}
