package dev.idem.demo.lab;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * The lab's HTTP/1.1 client, on a plain socket so that it sees exactly what the network did: one
 * request per connection ({@code Connection: close}), no automatic retries, no pooling, and a clear
 * difference between "refused" (nothing was sent) and "sent, but no response" (a lost response or a
 * dead server). The fault proxy relies on the one-request-per-connection shape too.
 */
final class LabHttp {
    private static final int CONNECT_TIMEOUT_MILLIS = 2_000;

    /** An answer. Header names are lower-case; the first value of each is kept. */
    record Response(int status, Map<String, String> headers, String body) {
        String header(String name) {
            return headers.get(name.toLowerCase(Locale.ROOT));
        }
    }

    /**
     * What one exchange came to.
     *
     * @param sent     a connection was made and the request written to it
     * @param response the answer, or null
     * @param failure  why there is no answer, or null
     */
    record Result(boolean sent, Response response, String failure, long micros) {
    }

    private LabHttp() {
    }

    static Result exchange(int port, String method, String path, Map<String, String> headers, String body, Duration readTimeout) {
        long started = System.nanoTime();
        byte[] payload = body == null ? new byte[0] : body.getBytes(StandardCharsets.UTF_8);
        try (Socket socket = new Socket()) {
            try {
                socket.connect(new InetSocketAddress("127.0.0.1", port), CONNECT_TIMEOUT_MILLIS);
            } catch (IOException e) {
                return new Result(false, null, e instanceof ConnectException ? "connection refused" : "connect failed", micros(started));
            }
            socket.setSoTimeout((int) readTimeout.toMillis());
            socket.setTcpNoDelay(true);
            try {
                OutputStream out = socket.getOutputStream();
                out.write(head(method, path, port, headers, payload.length).getBytes(StandardCharsets.ISO_8859_1));
                out.write(payload);
                out.flush();
                ByteArrayOutputStream raw = new ByteArrayOutputStream();
                socket.getInputStream().transferTo(raw);
                if (raw.size() == 0) {
                    return new Result(true, null, "closed without a response", micros(started));
                }
                return new Result(true, parse(raw.toByteArray()), null, micros(started));
            } catch (SocketTimeoutException e) {
                return new Result(true, null, "timed out", micros(started));
            } catch (IOException e) {
                return new Result(true, null, "connection reset", micros(started));
            }
        } catch (IOException e) {
            return new Result(false, null, "socket error", micros(started));
        }
    }

    static Result get(int port, String path, Duration readTimeout) {
        return exchange(port, "GET", path, Map.of(), null, readTimeout);
    }

    private static String head(String method, String path, int port, Map<String, String> headers, int length) {
        StringBuilder head = new StringBuilder();
        head.append(method).append(' ').append(path).append(" HTTP/1.1\r\n");
        head.append("Host: 127.0.0.1:").append(port).append("\r\n");
        head.append("Connection: close\r\n");
        head.append("Accept: application/json\r\n");
        headers.forEach((name, value) -> head.append(name).append(": ").append(value).append("\r\n"));
        if (length > 0 || method.equals("POST") || method.equals("PUT")) {
            head.append("Content-Length: ").append(length).append("\r\n");
        }
        head.append("\r\n");
        return head.toString();
    }

    /** Parses a whole response read to the end of the connection. */
    static Response parse(byte[] raw) throws IOException {
        int headEnd = indexOf(raw, "\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
        if (headEnd < 0) {
            throw new IOException("response head incomplete");
        }
        String[] lines = new String(raw, 0, headEnd, StandardCharsets.ISO_8859_1).split("\r\n");
        String[] statusLine = lines[0].split(" ", 3);
        if (statusLine.length < 2 || !statusLine[0].startsWith("HTTP/")) {
            throw new IOException("not an HTTP response");
        }
        int status = Integer.parseInt(statusLine[1]);
        Map<String, String> headers = new LinkedHashMap<>();
        for (int i = 1; i < lines.length; i++) {
            int colon = lines[i].indexOf(':');
            if (colon > 0) {
                headers.putIfAbsent(lines[i].substring(0, colon).trim().toLowerCase(Locale.ROOT), lines[i].substring(colon + 1).trim());
            }
        }
        int bodyStart = headEnd + 4;
        byte[] body;
        String encoding = headers.getOrDefault("transfer-encoding", "");
        if (encoding.toLowerCase(Locale.ROOT).contains("chunked")) {
            body = dechunk(raw, bodyStart);
        } else if (headers.containsKey("content-length")) {
            int length = Integer.parseInt(headers.get("content-length"));
            if (bodyStart + length > raw.length) {
                throw new IOException("response body truncated");
            }
            body = java.util.Arrays.copyOfRange(raw, bodyStart, bodyStart + length);
        } else {
            body = java.util.Arrays.copyOfRange(raw, bodyStart, raw.length);
        }
        return new Response(status, headers, new String(body, StandardCharsets.UTF_8));
    }

    private static byte[] dechunk(byte[] raw, int from) throws IOException {
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        int pos = from;
        while (true) {
            int lineEnd = indexOf(raw, pos, "\r\n".getBytes(StandardCharsets.ISO_8859_1));
            if (lineEnd < 0) {
                throw new IOException("chunked body truncated");
            }
            String sizeText = new String(raw, pos, lineEnd - pos, StandardCharsets.ISO_8859_1).split(";", 2)[0].trim();
            int size = Integer.parseInt(sizeText, 16);
            pos = lineEnd + 2;
            if (size == 0) {
                return body.toByteArray();
            }
            if (pos + size > raw.length) {
                throw new IOException("chunked body truncated");
            }
            body.write(raw, pos, size);
            pos += size + 2;
        }
    }

    private static int indexOf(byte[] data, byte[] pattern) {
        return indexOf(data, 0, pattern);
    }

    private static int indexOf(byte[] data, int from, byte[] pattern) {
        outer:
        for (int i = from; i <= data.length - pattern.length; i++) {
            for (int j = 0; j < pattern.length; j++) {
                if (data[i + j] != pattern[j]) {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }

    private static long micros(long startedNanos) {
        return (System.nanoTime() - startedNanos) / 1_000;
    }
}
