package dev.idem.admin;

import dev.idem.InvalidKeyException;
import dev.idem.StoreException;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.InputStream;
import java.security.Principal;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Objects;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.json.JsonMapper;

/**
 * {@link IdemAdmin} over HTTP, as JSON, with an optional web console: a Jakarta Servlet to map at a
 * path of its own ({@code /idem-admin/*}). See docs/operations.md for the endpoints and their answers.
 *
 * <h2>Security</h2>
 * <ul>
 * <li>Every request, reads included, needs the {@linkplain Builder#role role}
 *     ({@link HttpServletRequest#isUserInRole}): the container's or Spring Security's authentication
 *     decides; none means 401, another role 403.</li>
 * <li>Writes are {@code POST} with a JSON body ({@code Content-Type: application/json}, which a
 *     cross-site form cannot send without the browser asking first), and are refused when the
 *     request says it comes from another site ({@code Origin} not this server's, or
 *     {@code Sec-Fetch-Site} neither {@code same-origin} nor {@code none}), and in
 *     {@linkplain Builder#readOnly read-only mode}. A refusal changes nothing and is logged and
 *     counted as an action.</li>
 * <li>Answers are never cached ({@code Cache-Control: no-store}); the console's pages forbid framing
 *     and anything not served from here (no CDN: it works offline).</li>
 * </ul>
 */
public final class IdemAdminServlet extends HttpServlet {
    private static final long serialVersionUID = 1L;
    private static final String CONSOLE = "/dev/idem/admin/console/";
    private static final Map<String, String> CONSOLE_FILES = Map.of(
            "/", "index.html", "/index.html", "index.html", "/console.js", "console.js", "/console.css", "console.css");
    private static final int MAX_BODY = 16 * 1024;

    private final transient IdemAdmin admin;
    private final String role;
    private final boolean readOnly;
    private final boolean console;
    private final transient JsonMapper json = JsonMapper.builder().build();

    private IdemAdminServlet(Builder b) {
        this.admin = b.admin;
        this.role = b.role;
        this.readOnly = b.readOnly;
        this.console = b.console;
    }

    public static Builder builder(IdemAdmin admin) {
        return new Builder(admin);
    }

    @Override
    protected void service(HttpServletRequest req, HttpServletResponse resp) throws IOException {
        resp.setHeader("Cache-Control", "no-store");
        resp.setHeader("X-Content-Type-Options", "nosniff");
        if (req.getPathInfo() == null && "GET".equals(req.getMethod())) {
            // The console's links are relative to its folder: /idem-admin becomes /idem-admin/.
            resp.sendRedirect(req.getRequestURI() + "/");
            return;
        }
        String path = req.getPathInfo() == null ? "/" : req.getPathInfo();
        boolean post = "POST".equals(req.getMethod());
        if (!post && !"GET".equals(req.getMethod())) {
            resp.setHeader("Allow", "GET, POST");
            problem(resp, 405, "Method not allowed", "the admin API takes GET and POST");
            return;
        }
        if (!authorised(req, resp, post ? action(path) : null)) {
            return;
        }
        try {
            if (post) {
                write(req, resp, path);
            } else if (path.startsWith("/api/")) {
                read(req, resp, path);
            } else if (console && CONSOLE_FILES.containsKey(path)) {
                consoleFile(resp, CONSOLE_FILES.get(path));
            } else {
                problem(resp, 404, "Not found", console ? "no such admin resource" : "no such admin resource (the console is off)");
            }
        } catch (IllegalArgumentException | InvalidKeyException | JacksonException e) {
            problem(resp, 400, "Bad request", e.getMessage());
        } catch (NoSuchElementException e) {
            problem(resp, 404, "Not found", e.getMessage());
        } catch (UnsupportedOperationException e) {
            problem(resp, 501, "Not implemented", e.getMessage());
        } catch (StoreException e) {
            problem(resp, 503, "Store unavailable", e.getMessage());
        }
    }

    private boolean authorised(HttpServletRequest req, HttpServletResponse resp, String action) throws IOException {
        Principal user = req.getUserPrincipal();
        if (user == null || !req.isUserInRole(role)) {
            if (action != null) {
                admin.refused(action, user == null ? null : user.getName(), user == null ? "not authenticated" : "without the role");
            }
            problem(resp, user == null ? 401 : 403, user == null ? "Unauthorized" : "Forbidden",
                    "the idem admin API needs the role " + role);
            return false;
        }
        return true;
    }

    private void read(HttpServletRequest req, HttpServletResponse resp, String path) throws IOException {
        Object answer = switch (path) {
            case "/api/overview" -> admin.overview();
            case "/api/settings" -> settings();
            case "/api/records" -> admin.record(req.getParameter("scope"), req.getParameter("key"));
            case "/api/records/stuck" -> admin.stuck(limit(req));
            case "/api/inbox" -> req.getParameter("consumer") == null ? admin.quarantine(limit(req))
                    : admin.quarantine(req.getParameter("consumer"), limit(req));
            case "/api/outbox" -> admin.outbox();
            case "/api/sweepers" -> admin.sweepers();
            case "/api/store" -> admin.store();
            default -> null;
        };
        if (answer == null) {
            problem(resp, 404, "Not found", "no such admin resource");
            return;
        }
        send(resp, 200, answer);
    }

    private void write(HttpServletRequest req, HttpServletResponse resp, String path) throws IOException {
        String action = action(path);
        String actor = req.getUserPrincipal().getName();
        if (action == null) {
            problem(resp, 404, "Not found", "no such admin action");
            return;
        }
        String contentType = req.getContentType() == null ? "" : req.getContentType().toLowerCase(Locale.ROOT);
        if (!contentType.startsWith("application/json")) {
            admin.refused(action, actor, "not a JSON request");
            problem(resp, 415, "Unsupported media type", "admin actions take a JSON body (Content-Type: application/json)");
            return;
        }
        String crossSite = crossSite(req);
        if (crossSite != null) {
            admin.refused(action, actor, "cross-site request");
            problem(resp, 403, "Forbidden", crossSite);
            return;
        }
        if (readOnly) {
            admin.refused(action, actor, "read-only mode");
            problem(resp, 403, "Forbidden", "the idem admin API is read-only here");
            return;
        }
        Map<?, ?> body = body(req);
        Object answer = switch (action) {
            case "release" -> admin.release(actor, text(body, "scope"), text(body, "key"), number(body, "token"), flag(body, "force"));
            case "replay" -> flag(body, "all") ? admin.replayAll(actor, text(body, "consumer"))
                    : admin.replay(actor, text(body, "consumer"), text(body, "messageId"));
            case "drop" -> admin.drop(actor, text(body, "consumer"), text(body, "messageId"));
            default -> throw new IllegalStateException("unreachable: " + action);
        };
        send(resp, 200, answer);
    }

    /** The action a POST to {@code path} asks for, or null if none. */
    private static String action(String path) {
        return switch (path) {
            case "/api/records/release" -> "release";
            case "/api/inbox/replay" -> "replay";
            case "/api/inbox/drop" -> "drop";
            default -> null;
        };
    }

    /** Why the request looks cross-site, or null if it does not. */
    private static String crossSite(HttpServletRequest req) {
        String fetchSite = req.getHeader("Sec-Fetch-Site");
        if (fetchSite != null && !fetchSite.equals("same-origin") && !fetchSite.equals("none")) {
            return "the browser says this request comes from another site (Sec-Fetch-Site: " + fetchSite + ")";
        }
        String origin = req.getHeader("Origin");
        if (origin != null) {
            int port = req.getServerPort();
            boolean defaultPort = port == ("https".equals(req.getScheme()) ? 443 : 80);
            String own = req.getScheme() + "://" + req.getServerName() + (defaultPort ? "" : ":" + port);
            if (!origin.equalsIgnoreCase(own)) {
                return "the request's Origin is not this server";
            }
        }
        return null;
    }

    private Map<String, Object> settings() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("readOnly", readOnly);
        m.put("showContent", admin.showsContent());
        m.put("console", console);
        return m;
    }

    private Map<?, ?> body(HttpServletRequest req) throws IOException {
        try (InputStream in = req.getInputStream()) {
            byte[] bytes = in.readNBytes(MAX_BODY + 1);
            if (bytes.length > MAX_BODY) {
                throw new IllegalArgumentException("the request body is over " + MAX_BODY + " bytes");
            }
            Object parsed = json.readValue(bytes, Object.class);
            if (!(parsed instanceof Map<?, ?> map)) {
                throw new IllegalArgumentException("the request body must be a JSON object");
            }
            return map;
        }
    }

    private static String text(Map<?, ?> body, String field) {
        Object v = body.get(field);
        if (v != null && !(v instanceof String)) {
            throw new IllegalArgumentException(field + " must be a string");
        }
        return (String) v;
    }

    private static long number(Map<?, ?> body, String field) {
        Object v = body.get(field);
        if (v instanceof Number n && n.longValue() == n.doubleValue()) {
            return n.longValue();
        }
        if (v instanceof String s && s.matches("-?\\d{1,19}")) {
            // Tokens exceed JavaScript's exact integers; the console sends them as strings.
            return Long.parseLong(s);
        }
        throw new IllegalArgumentException(field + " must be an integer");
    }

    private static boolean flag(Map<?, ?> body, String field) {
        Object v = body.get(field);
        if (v != null && !(v instanceof Boolean)) {
            throw new IllegalArgumentException(field + " must be true or false");
        }
        return Boolean.TRUE.equals(v);
    }

    private static int limit(HttpServletRequest req) {
        String limit = req.getParameter("limit");
        if (limit == null) {
            return IdemAdmin.DEFAULT_LIMIT;
        }
        try {
            return Integer.parseInt(limit);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("limit must be a number");
        }
    }

    private void consoleFile(HttpServletResponse resp, String file) throws IOException {
        try (InputStream in = IdemAdminServlet.class.getResourceAsStream(CONSOLE + file)) {
            if (in == null) {
                problem(resp, 404, "Not found", "the console's " + file + " is missing from the jar");
                return;
            }
            resp.setStatus(200);
            resp.setContentType(file.endsWith(".html") ? "text/html;charset=utf-8"
                    : file.endsWith(".js") ? "text/javascript;charset=utf-8" : "text/css;charset=utf-8");
            resp.setHeader("Content-Security-Policy", "default-src 'self'; frame-ancestors 'none'; form-action 'none'; base-uri 'none'");
            resp.setHeader("X-Frame-Options", "DENY");
            in.transferTo(resp.getOutputStream());
        }
    }

    private void send(HttpServletResponse resp, int status, Object body) throws IOException {
        resp.setStatus(status);
        resp.setContentType("application/json");
        resp.setCharacterEncoding("UTF-8");
        resp.getOutputStream().write(json.writeValueAsBytes(body));
    }

    private void problem(HttpServletResponse resp, int status, String title, String detail) throws IOException {
        Map<String, Object> p = new LinkedHashMap<>();
        p.put("type", "about:blank");
        p.put("title", title);
        p.put("status", status);
        p.put("detail", detail);
        resp.setStatus(status);
        resp.setContentType("application/problem+json");
        resp.setCharacterEncoding("UTF-8");
        resp.getOutputStream().write(json.writeValueAsBytes(p));
    }

    /** Settings of an {@link IdemAdminServlet}. */
    public static final class Builder {
        private final IdemAdmin admin;
        private String role;
        private boolean readOnly;
        private boolean console;

        private Builder(IdemAdmin admin) {
            this.admin = Objects.requireNonNull(admin, "admin is null");
        }

        /** Required: the role every request needs ({@link HttpServletRequest#isUserInRole}), e.g. {@code IDEM_ADMIN}. */
        public Builder role(String role) {
            if (role == null || role.isBlank()) {
                throw new IllegalArgumentException("role is missing or blank");
            }
            this.role = role;
            return this;
        }

        /** Refuses every action; reads still answer. Default false. */
        public Builder readOnly(boolean readOnly) {
            this.readOnly = readOnly;
            return this;
        }

        /** Serves the web console at the servlet's root. Default false (off). */
        public Builder console(boolean console) {
            this.console = console;
            return this;
        }

        /** @throws IllegalStateException if no role was given */
        public IdemAdminServlet build() {
            if (role == null) {
                throw new IllegalStateException("the admin servlet needs a role (role(\"IDEM_ADMIN\")): it never answers anonymously");
            }
            return new IdemAdminServlet(this);
        }
    }
}
