package dev.idem.servlet.internal;

import jakarta.servlet.ServletOutputStream;
import jakarta.servlet.http.Cookie;
import jakarta.servlet.http.HttpServletResponse;
import java.io.PrintWriter;
import java.text.SimpleDateFormat;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Date;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TimeZone;
import java.util.TreeMap;

/**
 * The response under the {@link CapturingResponse} of a request a completer runs again in memory:
 * it holds status, headers, content type, character encoding and locale for the capture to read back,
 * as a container's uncommitted response would. It has no connection: the body never reaches it (the
 * capture buffers it), and nothing is ever sent.
 */
public final class MemoryResponse implements HttpServletResponse {
    private static final String CONTENT_TYPE = "Content-Type";
    private int status = SC_OK;
    /** Header values by name, case-insensitive, each name in the case it was first set. */
    private final Map<String, List<String>> headers = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
    private final Map<String, String> names = new LinkedHashMap<>();
    private String mediaType;
    private String charset;
    private Locale locale = Locale.getDefault();

    @Override
    public void setStatus(int status) {
        this.status = status;
    }

    @Override
    public int getStatus() {
        return status;
    }

    @Override
    public void setHeader(String name, String value) {
        if (name == null) {
            return;
        }
        if (CONTENT_TYPE.equalsIgnoreCase(name)) {
            setContentType(value);
            return;
        }
        headers.remove(name);
        if (value != null) {
            addHeader(name, value);
        }
    }

    @Override
    public void addHeader(String name, String value) {
        if (name == null || value == null) {
            return;
        }
        if (CONTENT_TYPE.equalsIgnoreCase(name)) {
            setContentType(value);
            return;
        }
        names.putIfAbsent(name.toLowerCase(Locale.ROOT), name);
        headers.computeIfAbsent(name, n -> new ArrayList<>()).add(value);
    }

    @Override
    public void setIntHeader(String name, int value) {
        setHeader(name, Integer.toString(value));
    }

    @Override
    public void addIntHeader(String name, int value) {
        addHeader(name, Integer.toString(value));
    }

    @Override
    public void setDateHeader(String name, long date) {
        setHeader(name, httpDate(date));
    }

    @Override
    public void addDateHeader(String name, long date) {
        addHeader(name, httpDate(date));
    }

    private static String httpDate(long date) {
        SimpleDateFormat format = new SimpleDateFormat("EEE, dd MMM yyyy HH:mm:ss zzz", Locale.US);
        format.setTimeZone(TimeZone.getTimeZone("GMT"));
        return format.format(new Date(date));
    }

    @Override
    public boolean containsHeader(String name) {
        return getHeader(name) != null;
    }

    @Override
    public String getHeader(String name) {
        if (CONTENT_TYPE.equalsIgnoreCase(name)) {
            return getContentType();
        }
        List<String> values = headers.get(name);
        return values == null || values.isEmpty() ? null : values.get(0);
    }

    @Override
    public Collection<String> getHeaders(String name) {
        if (CONTENT_TYPE.equalsIgnoreCase(name)) {
            String type = getContentType();
            return type == null ? List.of() : List.of(type);
        }
        List<String> values = headers.get(name);
        return values == null ? List.of() : List.copyOf(values);
    }

    @Override
    public Collection<String> getHeaderNames() {
        List<String> all = new ArrayList<>();
        for (String name : headers.keySet()) {
            all.add(names.getOrDefault(name.toLowerCase(Locale.ROOT), name));
        }
        if (mediaType != null) {
            all.add(CONTENT_TYPE);
        }
        return all;
    }

    @Override
    public void setContentType(String type) {
        if (type == null) {
            mediaType = null;
            return;
        }
        String[] parts = type.split(";");
        mediaType = parts[0].trim();
        for (int i = 1; i < parts.length; i++) {
            String p = parts[i].trim();
            if (p.regionMatches(true, 0, "charset=", 0, 8)) {
                charset = p.substring(8).trim();
            }
        }
    }

    @Override
    public String getContentType() {
        if (mediaType == null) {
            return null;
        }
        return charset == null ? mediaType : mediaType + ";charset=" + charset;
    }

    @Override
    public void setCharacterEncoding(String charset) {
        this.charset = charset;
    }

    @Override
    public String getCharacterEncoding() {
        return charset == null ? "ISO-8859-1" : charset;
    }

    @Override
    public void setLocale(Locale locale) {
        if (locale != null) {
            this.locale = locale;
        }
    }

    @Override
    public Locale getLocale() {
        return locale;
    }

    @Override
    public void addCookie(Cookie cookie) {
        addHeader("Set-Cookie", cookie.getName() + "=" + (cookie.getValue() == null ? "" : cookie.getValue()));
    }

    @Override
    public String encodeURL(String url) {
        return url;
    }

    @Override
    public String encodeRedirectURL(String url) {
        return url;
    }

    @Override
    public void sendError(int status, String message) {
        this.status = status;
    }

    @Override
    public void sendError(int status) {
        this.status = status;
    }

    @Override
    public void sendRedirect(String location) {
        sendRedirect(location, SC_FOUND, true);
    }

    @Override
    public void sendRedirect(String location, int status, boolean clearBuffer) {
        this.status = status;
        setHeader("Location", location);
    }

    @Override
    public void setContentLength(int length) {
        // Recomputed from the captured body.
    }

    @Override
    public void setContentLengthLong(long length) {
        // Recomputed from the captured body.
    }

    @Override
    public ServletOutputStream getOutputStream() {
        throw noBody();
    }

    @Override
    public PrintWriter getWriter() {
        throw noBody();
    }

    private static IllegalStateException noBody() {
        return new IllegalStateException("a MemoryResponse has no connection; its CapturingResponse holds the body");
    }

    @Override
    public void setBufferSize(int size) {
    }

    @Override
    public int getBufferSize() {
        return 0;
    }

    @Override
    public void flushBuffer() {
    }

    @Override
    public void resetBuffer() {
    }

    @Override
    public boolean isCommitted() {
        return false;
    }

    @Override
    public void reset() {
        status = SC_OK;
        headers.clear();
        names.clear();
        mediaType = null;
        charset = null;
    }
}
