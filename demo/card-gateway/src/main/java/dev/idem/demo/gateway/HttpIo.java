package dev.idem.demo.gateway;

import com.sun.net.httpserver.HttpExchange;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/** Reading requests and writing responses on the JDK HTTP server. */
final class HttpIo {
    static final String JSON = "application/json";
    static final String PROBLEM_JSON = "application/problem+json";

    private HttpIo() {
    }

    /** The body, or a 413 problem if it is longer than {@code max} bytes. */
    static byte[] readBody(HttpExchange exchange, int max) throws IOException {
        String length = exchange.getRequestHeaders().getFirst("Content-Length");
        if (length != null) {
            try {
                if (Long.parseLong(length.trim()) > max) {
                    throw new InvalidRequestException(413, "Content Too Large", "the body may have at most " + max + " bytes");
                }
            } catch (NumberFormatException e) {
                throw InvalidRequestException.badRequest("Content-Length is not a number");
            }
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        byte[] buffer = new byte[4096];
        try (InputStream in = exchange.getRequestBody()) {
            int n;
            while ((n = in.read(buffer)) > 0) {
                out.write(buffer, 0, n);
                if (out.size() > max) {
                    throw new InvalidRequestException(413, "Content Too Large", "the body may have at most " + max + " bytes");
                }
            }
        }
        return out.toByteArray();
    }

    /** Refuses a declared content type other than JSON (415); an undeclared one is read as JSON. */
    static void requireJson(HttpExchange exchange) {
        String type = exchange.getRequestHeaders().getFirst("Content-Type");
        if (type == null) {
            return;
        }
        String mediaType = type.split(";", 2)[0].trim().toLowerCase(Locale.ROOT);
        if (!mediaType.equals(JSON) && !mediaType.endsWith("+json")) {
            throw new InvalidRequestException(415, "Unsupported Media Type", "send the body as application/json");
        }
    }

    static void send(HttpExchange exchange, int status, Map<String, List<String>> headers, byte[] body) throws IOException {
        headers.forEach((name, values) -> exchange.getResponseHeaders().put(name, values));
        exchange.sendResponseHeaders(status, body.length == 0 ? -1 : body.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(body);
        }
    }

    static void sendJson(HttpExchange exchange, int status, byte[] body) throws IOException {
        send(exchange, status, Map.of("Content-Type", List.of(JSON)), body);
    }

    /** An RFC 9457 problem; {@code detail} never quotes a key or a body. */
    static void problem(HttpExchange exchange, JsonMapper json, int status, String title, String detail) throws IOException {
        problem(exchange, json, status, title, detail, Map.of());
    }

    static void problem(HttpExchange exchange, JsonMapper json, int status, String title, String detail,
                        Map<String, List<String>> extraHeaders) throws IOException {
        ObjectNode problem = json.createObjectNode();
        problem.put("type", "about:blank");
        problem.put("title", title);
        problem.put("status", status);
        problem.put("detail", detail);
        extraHeaders.forEach((name, values) -> exchange.getResponseHeaders().put(name, values));
        send(exchange, status, Map.of("Content-Type", List.of(PROBLEM_JSON)), json.writeValueAsString(problem).getBytes(StandardCharsets.UTF_8));
    }
}
