package dev.idem.servlet.internal;

import dev.idem.StoragePolicy;
import dev.idem.StoredResponse;
import dev.idem.http.HttpAnswer;
import dev.idem.http.HttpAnswers;
import jakarta.servlet.ServletOutputStream;
import jakarta.servlet.WriteListener;
import jakarta.servlet.http.HttpServletResponse;
import jakarta.servlet.http.HttpServletResponseWrapper;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.charset.Charset;
import java.nio.charset.IllegalCharsetNameException;
import java.nio.charset.StandardCharsets;
import java.nio.charset.UnsupportedCharsetException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The response as the handler sees it on a covered route. Nothing reaches the client while the
 * handler runs: the body is buffered here (in memory up to one byte over the engine's cap, the rest
 * in a temporary file), the response is never committed, and the filter stores
 * the result before it {@link #sendToClient() sends} it (lock key → effect → store → send).
 *
 * <p>Status and headers go to the wrapped response, which stays uncommitted, so the container's own
 * rules for content type, character encoding and cookies apply unchanged; the stored copy reads them
 * back. {@code Content-Length} from the handler is ignored: it is recomputed from the buffered body.
 * {@code sendError} and {@code sendRedirect} are recorded, not performed, until the response is sent.
 *
 * <p><b>Only the handler's headers are stored.</b> Headers already on the response when the wrapper
 * is made (set by filters in front of the idempotency filter: CORS, request ids, …) are not: those
 * filters run again in front of a replay and set their own for that request. A header the handler
 * sets replaces an outer filter's value and is stored; one it only adds to is stored as the handler's
 * values, and a replay appends them to the outer filters' fresh ones.
 *
 * <p><b>Header text is normalised as it is set</b>, the way Jetty 12 (and, nearly so, Tomcat) writes
 * it on the wire: in values, control characters other than tab, DEL and characters beyond
 * ISO-8859-1 become a space; in names, every character that is not an HTTP token character becomes
 * {@code .}; a header without a name is dropped. The first caller therefore receives exactly what is
 * stored and replayed, on any container, and no header the handler can set makes the response
 * unstorable — once the handler ran, its response's shape never releases the key.
 */
public final class CapturingResponse extends HttpServletResponseWrapper implements AutoCloseable {
    /** Set on a stored response whose body was over the engine's cap and left out (the engine's marker). */
    public static final String BODY_OMITTED_HEADER = StoredResponse.BODY_OMITTED_HEADER;
    /** Set on every replayed response. */
    public static final String REPLAYED_HEADER = HttpAnswers.REPLAYED_HEADER;
    /** Set on a stored response some of whose headers could not be stored and were left out. */
    public static final String HEADERS_OMITTED_HEADER = HttpAnswers.HEADERS_OMITTED_HEADER;
    /**
     * Stored, never sent: the names (comma-separated) of headers the handler only added to values an
     * outer filter had set, so a replay appends them to that filter's fresh values instead of replacing them.
     */
    public static final String APPENDED_HEADER = HttpAnswers.APPENDED_HEADER;
    /**
     * Set by a handler to decline storage of this response ({@code no}); kept here, never passed to
     * the wrapped response, so it reaches neither the client nor the store.
     */
    public static final String STORE_HEADER = HttpAnswers.STORE_HEADER;


    private static final System.Logger LOG = System.getLogger(CapturingResponse.class.getName());

    private final HttpServletResponse response;
    private final SpillingBody body;
    private ServletOutputStream stream;
    private PrintWriter writer;
    private String writerCharset;
    private boolean closed;
    private int errorStatus = -1;
    private String errorMessage;
    /** The headers on the response before the handler ran (outer filters'), by name, case-insensitive. */
    private final Map<String, List<String>> atEntry = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
    /** Names the handler set (replacing any outer value): all their values are the handler's. */
    private final Set<String> setByHandler = new TreeSet<>(String.CASE_INSENSITIVE_ORDER);
    /** Names the handler added values to: its values are those beyond the ones present at entry. */
    private final Set<String> addedByHandler = new TreeSet<>(String.CASE_INSENSITIVE_ORDER);
    private boolean storageDeclined;

    /**
     * Wraps {@code response} as the handler will see it. Headers already on it are taken to be
     * outer filters' and will not be stored. At most {@code maxStoredBytes + 1} bytes of the body are
     * held in memory (enough to tell that it is over the cap); the rest waits in a temporary file
     * until it is sent, so the first caller still gets every byte. {@link #close()} deletes that file.
     */
    public CapturingResponse(HttpServletResponse response, int maxStoredBytes) {
        super(response);
        this.response = response;
        this.body = new SpillingBody(Math.addExact(maxStoredBytes, 1));
        Collection<String> names = response.getHeaderNames();
        if (names != null) {
            for (String name : names) {
                Collection<String> values = response.getHeaders(name);
                if (values != null && !values.isEmpty()) {
                    atEntry.computeIfAbsent(name, n -> new ArrayList<>()).addAll(values);
                }
            }
        }
    }

    /** Whether a header of this name is stored (idem-http's one list of those that are not). */
    public static boolean stored(String headerName) {
        return HttpAnswers.isStoredHeader(headerName);
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
            setByHandler.add("Content-Type");
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
            setByHandler.add("Content-Type");
            super.setCharacterEncoding(charset == null ? null : HeaderFields.headerValue(charset));
        }
    }

    @Override
    public void setContentType(String type) {
        setByHandler.add("Content-Type");
        super.setContentType(type == null ? null : HeaderFields.headerValue(type));
        if (writer != null) {
            // After getWriter() the encoding is fixed (Servlet spec); keep the header true to the bytes.
            super.setCharacterEncoding(writerCharset);
        }
    }

    @Override
    public void setLocale(Locale locale) {
        setByHandler.add("Content-Language");
        setByHandler.add("Content-Type"); // a container may derive the charset from the locale
        super.setLocale(locale);
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
        discardBody();
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
        discardBody();
        // The container cleared every header, the outer filters' too: whatever is set from now on is the handler's.
        atEntry.clear();
        setByHandler.clear();
        addedByHandler.clear();
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
            return;
        }
        String normalised = HeaderFields.headerName(name);
        if (normalised != null && !"Content-Length".equalsIgnoreCase(normalised)) {
            setByHandler.add(normalised);
            super.setHeader(normalised, value == null ? null : HeaderFields.headerValue(value));
        }
    }

    @Override
    public void addHeader(String name, String value) {
        if (STORE_HEADER.equalsIgnoreCase(name)) {
            storageDeclined |= declines(value);
            return;
        }
        String normalised = HeaderFields.headerName(name);
        if (normalised != null && !"Content-Length".equalsIgnoreCase(normalised)) {
            addedByHandler.add(normalised);
            super.addHeader(normalised, value == null ? null : HeaderFields.headerValue(value));
        }
    }

    private static boolean declines(String value) {
        return value != null && "no".equalsIgnoreCase(value.trim());
    }

    @Override
    public void setIntHeader(String name, int value) {
        String normalised = HeaderFields.headerName(name);
        if (normalised != null && !"Content-Length".equalsIgnoreCase(normalised)) {
            setByHandler.add(normalised);
            super.setIntHeader(normalised, value);
        }
    }

    @Override
    public void addIntHeader(String name, int value) {
        String normalised = HeaderFields.headerName(name);
        if (normalised != null && !"Content-Length".equalsIgnoreCase(normalised)) {
            addedByHandler.add(normalised);
            super.addIntHeader(normalised, value);
        }
    }

    @Override
    public void setDateHeader(String name, long date) {
        String normalised = HeaderFields.headerName(name);
        if (normalised != null) {
            setByHandler.add(normalised);
            super.setDateHeader(normalised, date);
        }
    }

    @Override
    public void addDateHeader(String name, long date) {
        String normalised = HeaderFields.headerName(name);
        if (normalised != null) {
            addedByHandler.add(normalised);
            super.addDateHeader(normalised, date);
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
        setHeader("Location", location);
        closed = true;
    }

    private void ensureOpen() {
        if (closed) {
            throw new IllegalStateException("the response was already committed (sendError or sendRedirect)");
        }
    }

    // ---- after the handler ---------------------------------------------------------------------

    /**
     * What to store: the status, the storable headers the handler set (not the outer filters'), as
     * the container holds them, and the body as far as it is held in memory — all of it when it is
     * within the cap, else one byte over it, so that the engine's rule ({@link dev.idem.Idem#storable})
     * stores it empty and marked; marked {@linkplain StoragePolicy#declined declined} when the handler
     * sent {@code Idempotent-Store: no}. Never fails because of a header: one that still could not be stored
     * is left out and the response is marked {@code Idempotent-Headers-Omitted: true}; and if even the
     * copy of the body fails (no memory left), the status alone is stored, marked as missing its
     * headers and body: the effect happened, and nothing may give the key back now.
     */
    public StoredResponse toStored() {
        StoredResponse stored;
        try {
            stored = storedCopy();
        } catch (RuntimeException | OutOfMemoryError copyFailed) {
            stored = StoredResponse.of(response.getStatus(),
                    Map.of(HEADERS_OMITTED_HEADER, List.of("true"), BODY_OMITTED_HEADER, List.of("true")), new byte[0]);
        }
        // The handler's refusal travels with its answer: the engine's storage policy never stores it.
        return storageDeclined ? StoragePolicy.declined(stored) : stored;
    }

    private StoredResponse storedCopy() {
        if (writer != null) {
            writer.flush();
        }
        Map<String, List<String>> headers = new LinkedHashMap<>();
        List<String> appended = new ArrayList<>();
        boolean omitted = storedHeaders(headers, appended);
        byte[] bytes = errorStatus >= 0 ? new byte[0] : body.head();
        if (!appended.isEmpty()) {
            headers.put(APPENDED_HEADER, List.of(String.join(", ", appended)));
        }
        if (omitted) {
            headers.put(HEADERS_OMITTED_HEADER, List.of("true"));
        }
        try {
            return StoredResponse.of(response.getStatus(), headers, bytes);
        } catch (IllegalArgumentException unstorableHeader) {
            // Not expected after normalisation; still, the effect happened: keep the outcome, not the headers.
            return StoredResponse.of(response.getStatus(), Map.of(HEADERS_OMITTED_HEADER, List.of("true")), bytes);
        }
    }

    /** Fills {@code headers} with the handler's storable ones; returns whether one had to be left out. */
    private boolean storedHeaders(Map<String, List<String>> headers, List<String> appended) {
        boolean omitted = false;
        Set<String> seen = new TreeSet<>(String.CASE_INSENSITIVE_ORDER);
        for (String containerName : response.getHeaderNames()) {
            if (!seen.add(containerName) || !stored(containerName)) {
                continue;
            }
            boolean set = setByHandler.contains(containerName);
            if (!set && !addedByHandler.contains(containerName)) {
                continue; // an outer filter's (or the container's): it sets its own again on a replay
            }
            List<String> values = new ArrayList<>();
            for (String value : response.getHeaders(containerName)) {
                if (value != null) {
                    values.add(HeaderFields.headerValue(value)); // already normalised when set; read back from the container
                }
            }
            List<String> outer = atEntry.get(containerName);
            if (!set && outer != null) {
                outer.forEach(values::remove); // the handler's values follow the outer filter's
                if (!values.isEmpty()) {
                    appended.add(containerName);
                }
            }
            String name = HeaderFields.headerName(containerName);
            if (name == null) {
                omitted = true;
            } else if (!values.isEmpty()) {
                headers.computeIfAbsent(name, n -> new ArrayList<>()).addAll(values);
            }
        }
        // Some containers (Tomcat) keep the content type outside the header list until commit.
        String contentType = response.getContentType();
        if (contentType != null && !seen.contains("Content-Type") && setByHandler.contains("Content-Type")) {
            headers.put("Content-Type", List.of(HeaderFields.headerValue(contentType)));
        }
        return omitted;
    }

    /**
     * Drops what the handler set on the wrapped response — status, headers (its cookies included),
     * content type — and puts back the headers earlier filters had set, so the filter can answer
     * something else instead. Only while the wrapped response is not committed.
     */
    public void discard() {
        response.reset();
        atEntry.forEach((name, values) -> {
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
        boolean contentAllowed = contentAllowed(response.getStatus());
        if (contentAllowed) {
            response.setContentLengthLong(body.length());
            if (body.length() > 0) {
                body.writeTo(response.getOutputStream());
            }
        }
        response.flushBuffer();
    }

    /** Deletes the temporary file of a body over the in-memory limit, if there is one. */
    @Override
    public void close() {
        try {
            body.discard();
        } catch (IOException e) {
            // The answer is settled by now; a file left behind is the operating system's to clean.
            LOG.log(System.Logger.Level.WARNING, "could not delete the temporary file of a captured response body", e);
        }
    }

    private void discardBody() {
        try {
            body.discard();
        } catch (IOException e) {
            throw new UncheckedIOException("could not delete the temporary file of a captured response body", e);
        }
    }

    /** Heap held for the captured body (never more than the cap plus one byte). */
    public int bodyHeapBytes() {
        return body.heapBytes();
    }

    /** 1xx, 204 and 304 have no content, and must not announce a length (RFC 9110 §8.6). */
    private static boolean contentAllowed(int status) {
        return new HttpAnswer(status, List.of(), new byte[0]).hasContent();
    }

    private final class CaptureStream extends ServletOutputStream {
        @Override
        public void write(int b) throws IOException {
            if (!closed) {
                body.write(b);
            }
        }

        @Override
        public void write(byte[] bytes, int offset, int length) throws IOException {
            Objects.checkFromIndexSize(offset, length, bytes.length);
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
