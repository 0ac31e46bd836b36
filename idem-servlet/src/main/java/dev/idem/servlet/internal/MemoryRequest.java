package dev.idem.servlet.internal;

import dev.idem.http.StoredRequest;
import jakarta.servlet.AsyncContext;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.RequestDispatcher;
import jakarta.servlet.ServletConnection;
import jakarta.servlet.ServletContext;
import jakarta.servlet.ServletInputStream;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.Cookie;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import jakarta.servlet.http.HttpSession;
import jakarta.servlet.http.HttpUpgradeHandler;
import jakarta.servlet.http.Part;
import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.UnsupportedEncodingException;
import java.nio.charset.Charset;
import java.nio.charset.IllegalCharsetNameException;
import java.nio.charset.StandardCharsets;
import java.security.Principal;
import java.text.SimpleDateFormat;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.Enumeration;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A request rebuilt in memory from a {@link StoredRequest}, for a completer to dispatch to a servlet
 * inside the application: method, request URI (the servlet context's path and the stored target),
 * query and its parameters, the kept headers, attributes, locale from {@code Accept-Language},
 * character encoding from {@code Content-Type}, dispatcher type {@code REQUEST}, the given servlet
 * context. The body, the form parameters, multipart and asynchronous refusal come from the
 * {@link BufferedRequest} that wraps this one, as for a live covered request.
 *
 * <p>What an in-process re-run has no way to offer — a session, a principal or authentication, a
 * connection, upgrade, push — is refused with {@link UnsupportedOperationException} or answered as a
 * request without it (no cookies, no principal, no session id); the servlet is mapped as the
 * default servlet ({@code /}), so the path within the application is the servlet path.
 */
public final class MemoryRequest implements HttpServletRequest {
    private final StoredRequest stored;
    private final ServletContext context;
    private final String servletPath;
    private final Map<String, Object> attributes = new ConcurrentHashMap<>();
    private final Map<String, String[]> queryParameters;
    private final String requestId = UUID.randomUUID().toString();
    private String characterEncoding;

    public MemoryRequest(StoredRequest stored, ServletContext context) {
        this.stored = stored;
        this.context = context;
        this.servletPath = percentDecode(stored.path());
        this.characterEncoding = charsetOf(stored.header("Content-Type").orElse(null));
        Map<String, List<String>> collected = new LinkedHashMap<>();
        BufferedRequest.addPairs(collected, stored.query().orElse(null), StandardCharsets.UTF_8);
        Map<String, String[]> parameters = new LinkedHashMap<>();
        collected.forEach((name, values) -> parameters.put(name, values.toArray(new String[0])));
        this.queryParameters = Collections.unmodifiableMap(parameters);
    }

    /** Percent-decodes a path as UTF-8 ({@code +} stays: it is a space only in forms). */
    static String percentDecode(String path) {
        if (path.indexOf('%') < 0) {
            return path;
        }
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(path.length());
        for (int i = 0; i < path.length(); i++) {
            char c = path.charAt(i);
            if (c == '%' && i + 2 < path.length() && Character.digit(path.charAt(i + 1), 16) >= 0
                    && Character.digit(path.charAt(i + 2), 16) >= 0) {
                bytes.write(Character.digit(path.charAt(i + 1), 16) * 16 + Character.digit(path.charAt(i + 2), 16));
                i += 2;
            } else {
                byte[] utf8 = String.valueOf(c).getBytes(StandardCharsets.UTF_8);
                bytes.write(utf8, 0, utf8.length);
            }
        }
        return bytes.toString(StandardCharsets.UTF_8);
    }

    private static String charsetOf(String contentType) {
        if (contentType == null) {
            return null;
        }
        for (String parameter : contentType.split(";")) {
            String p = parameter.trim();
            if (p.regionMatches(true, 0, "charset=", 0, 8)) {
                String value = p.substring(8).trim();
                String name = value.length() > 1 && value.startsWith("\"") && value.endsWith("\"") ? value.substring(1, value.length() - 1) : value;
                try {
                    return Charset.forName(name).name(); // canonical, as containers report it
                } catch (IllegalArgumentException unknown) {
                    return name; // a reader then falls back to the defaults, as for a live request
                }
            }
        }
        return null;
    }

    private static UnsupportedOperationException unsupported(String what) {
        return new UnsupportedOperationException(what + " is not available to a request run again by the completer from its"
                + " stored copy; a completable route's handler must not need it");
    }

    // ---- request line and headers ----

    @Override
    public String getMethod() {
        return stored.method();
    }

    @Override
    public String getRequestURI() {
        return getContextPath() + stored.path();
    }

    @Override
    public StringBuffer getRequestURL() {
        return new StringBuffer(getScheme()).append("://").append(getServerName()).append(':').append(getServerPort())
                .append(getRequestURI());
    }

    @Override
    public String getContextPath() {
        String path = context == null ? null : context.getContextPath();
        return path == null ? "" : path;
    }

    @Override
    public String getServletPath() {
        return servletPath;
    }

    @Override
    public String getPathInfo() {
        return null;
    }

    @Override
    public String getPathTranslated() {
        return null;
    }

    @Override
    public String getQueryString() {
        return stored.query().orElse(null);
    }

    @Override
    public String getHeader(String name) {
        return stored.header(name).orElse(null);
    }

    @Override
    public Enumeration<String> getHeaders(String name) {
        return Collections.enumeration(stored.headers(name));
    }

    @Override
    public Enumeration<String> getHeaderNames() {
        Set<String> names = new LinkedHashSet<>();
        Set<String> seen = new java.util.TreeSet<>(String.CASE_INSENSITIVE_ORDER);
        for (StoredRequest.Header header : stored.headers()) {
            if (seen.add(header.name())) {
                names.add(header.name());
            }
        }
        return Collections.enumeration(names);
    }

    @Override
    public int getIntHeader(String name) {
        String value = getHeader(name);
        return value == null ? -1 : Integer.parseInt(value.trim());
    }

    @Override
    public long getDateHeader(String name) {
        String value = getHeader(name);
        if (value == null) {
            return -1;
        }
        SimpleDateFormat format = new SimpleDateFormat("EEE, dd MMM yyyy HH:mm:ss zzz", Locale.US);
        format.setTimeZone(java.util.TimeZone.getTimeZone("GMT"));
        try {
            return format.parse(value.trim()).getTime();
        } catch (java.text.ParseException e) {
            throw new IllegalArgumentException("header '" + name + "' is not an HTTP date", e);
        }
    }

    @Override
    public String getContentType() {
        return getHeader("Content-Type");
    }

    @Override
    public String getCharacterEncoding() {
        return characterEncoding;
    }

    @Override
    public void setCharacterEncoding(String encoding) throws UnsupportedEncodingException {
        if (encoding != null) {
            try {
                Charset.forName(encoding);
            } catch (IllegalCharsetNameException | java.nio.charset.UnsupportedCharsetException e) {
                throw new UnsupportedEncodingException(encoding);
            }
        }
        this.characterEncoding = encoding;
    }

    @Override
    public int getContentLength() {
        return stored.bodyLength();
    }

    @Override
    public long getContentLengthLong() {
        return stored.bodyLength();
    }

    // ---- parameters (the query's; BufferedRequest adds a form body's) ----

    @Override
    public String getParameter(String name) {
        String[] values = queryParameters.get(name);
        return values == null ? null : values[0];
    }

    @Override
    public Enumeration<String> getParameterNames() {
        return Collections.enumeration(queryParameters.keySet());
    }

    @Override
    public String[] getParameterValues(String name) {
        String[] values = queryParameters.get(name);
        return values == null ? null : values.clone();
    }

    @Override
    public Map<String, String[]> getParameterMap() {
        return queryParameters;
    }

    // ---- attributes, locale, dispatch ----

    @Override
    public Object getAttribute(String name) {
        return attributes.get(name);
    }

    @Override
    public Enumeration<String> getAttributeNames() {
        return Collections.enumeration(new ArrayList<>(attributes.keySet()));
    }

    @Override
    public void setAttribute(String name, Object value) {
        if (value == null) {
            attributes.remove(name);
        } else {
            attributes.put(name, value);
        }
    }

    @Override
    public void removeAttribute(String name) {
        attributes.remove(name);
    }

    @Override
    public Locale getLocale() {
        return getLocales().nextElement();
    }

    @Override
    public Enumeration<Locale> getLocales() {
        String accept = getHeader("Accept-Language");
        List<Locale> locales = new ArrayList<>();
        if (accept != null) {
            try {
                for (Locale.LanguageRange range : Locale.LanguageRange.parse(accept)) {
                    if (!range.getRange().equals("*")) {
                        locales.add(Locale.forLanguageTag(range.getRange()));
                    }
                }
            } catch (IllegalArgumentException e) {
                // An unreadable Accept-Language: the default, as containers do.
            }
        }
        return Collections.enumeration(locales.isEmpty() ? List.of(Locale.getDefault()) : locales);
    }

    @Override
    public DispatcherType getDispatcherType() {
        return DispatcherType.REQUEST;
    }

    @Override
    public ServletContext getServletContext() {
        return context;
    }

    @Override
    public RequestDispatcher getRequestDispatcher(String path) {
        return context == null ? null : context.getRequestDispatcher(path);
    }

    // ---- the connection: there is none; the local host stands in ----

    @Override
    public String getProtocol() {
        return "HTTP/1.1";
    }

    @Override
    public String getScheme() {
        return "http";
    }

    @Override
    public boolean isSecure() {
        return false;
    }

    @Override
    public String getServerName() {
        return "localhost";
    }

    @Override
    public int getServerPort() {
        return 80;
    }

    @Override
    public String getRemoteAddr() {
        return "127.0.0.1";
    }

    @Override
    public String getRemoteHost() {
        return "localhost";
    }

    @Override
    public int getRemotePort() {
        return 0;
    }

    @Override
    public String getLocalName() {
        return "localhost";
    }

    @Override
    public String getLocalAddr() {
        return "127.0.0.1";
    }

    @Override
    public int getLocalPort() {
        return 0;
    }

    @Override
    public String getRequestId() {
        return requestId;
    }

    @Override
    public String getProtocolRequestId() {
        return "";
    }

    @Override
    public ServletConnection getServletConnection() {
        throw unsupported("the connection");
    }

    // ---- no user, no session, no cookies ----

    @Override
    public String getAuthType() {
        return null;
    }

    @Override
    public Cookie[] getCookies() {
        return null;
    }

    @Override
    public String getRemoteUser() {
        return null;
    }

    @Override
    public boolean isUserInRole(String role) {
        return false;
    }

    @Override
    public Principal getUserPrincipal() {
        return null;
    }

    @Override
    public String getRequestedSessionId() {
        return null;
    }

    @Override
    public HttpSession getSession(boolean create) {
        if (create) {
            throw unsupported("a session");
        }
        return null;
    }

    @Override
    public HttpSession getSession() {
        return getSession(true);
    }

    @Override
    public String changeSessionId() {
        throw unsupported("a session");
    }

    @Override
    public boolean isRequestedSessionIdValid() {
        return false;
    }

    @Override
    public boolean isRequestedSessionIdFromCookie() {
        return false;
    }

    @Override
    public boolean isRequestedSessionIdFromURL() {
        return false;
    }

    @Override
    public boolean authenticate(HttpServletResponse response) {
        throw unsupported("authentication");
    }

    @Override
    public void login(String username, String password) {
        throw unsupported("login");
    }

    @Override
    public void logout() {
        throw unsupported("logout");
    }

    // ---- served by the BufferedRequest around this one; refused if reached directly ----

    @Override
    public ServletInputStream getInputStream() {
        throw new IllegalStateException("the body is served by the BufferedRequest that wraps a MemoryRequest");
    }

    @Override
    public BufferedReader getReader() {
        throw new IllegalStateException("the body is served by the BufferedRequest that wraps a MemoryRequest");
    }

    @Override
    public Collection<Part> getParts() {
        throw unsupported("a multipart body");
    }

    @Override
    public Part getPart(String name) {
        throw unsupported("a multipart body");
    }

    @Override
    public <T extends HttpUpgradeHandler> T upgrade(Class<T> handlerClass) {
        throw unsupported("a protocol upgrade");
    }

    @Override
    public AsyncContext startAsync() {
        throw unsupported("asynchronous processing");
    }

    @Override
    public AsyncContext startAsync(ServletRequest request, ServletResponse response) {
        throw unsupported("asynchronous processing");
    }

    @Override
    public boolean isAsyncStarted() {
        return false;
    }

    @Override
    public boolean isAsyncSupported() {
        return false;
    }

    @Override
    public AsyncContext getAsyncContext() {
        throw new IllegalStateException("asynchronous processing was not started");
    }
}
