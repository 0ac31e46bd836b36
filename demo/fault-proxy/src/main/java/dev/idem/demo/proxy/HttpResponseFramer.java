package dev.idem.demo.proxy;

import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * Cuts a server's byte stream into whole HTTP/1.1 responses, so the proxy can forward or drop
 * exactly one response even on a keep-alive connection. It reads only as much framing as that needs:
 * the status line, {@code Content-Length}, {@code Transfer-Encoding: chunked}, and the statuses that
 * never have a body (1xx, 204, 304). Without a length the body runs to the end of the connection.
 *
 * <p>Not handled: responses to {@code HEAD} (which announce a length but carry no body); the demo
 * never sends {@code HEAD} through the proxy.
 */
final class HttpResponseFramer {
    private static final int MAX_HEAD_BYTES = 64 * 1024;
    private static final int MAX_LINE_BYTES = 8 * 1024;

    /** One response as it came from the server, byte for byte. */
    record Frame(byte[] bytes, int status, boolean interim, boolean untilClose) {
    }

    private final InputStream in;

    HttpResponseFramer(InputStream in) {
        this.in = in;
    }

    /** The next response, or {@code null} if the server closed the connection before sending one. */
    Frame next() throws IOException {
        ByteArrayOutputStream raw = new ByteArrayOutputStream();
        String statusLine = readLine(raw, true);
        if (statusLine == null) {
            return null;
        }
        int status = status(statusLine);
        long contentLength = -1;
        boolean chunked = false;
        while (true) {
            String line = readLine(raw, false);
            if (line.isEmpty()) {
                break;
            }
            if (raw.size() > MAX_HEAD_BYTES) {
                throw new IOException("response head longer than " + MAX_HEAD_BYTES + " bytes");
            }
            int colon = line.indexOf(':');
            if (colon <= 0) {
                continue;
            }
            String name = line.substring(0, colon).trim().toLowerCase(Locale.ROOT);
            String value = line.substring(colon + 1).trim();
            if (name.equals("content-length")) {
                contentLength = parseLength(value);
            } else if (name.equals("transfer-encoding") && value.toLowerCase(Locale.ROOT).contains("chunked")) {
                chunked = true;
            }
        }
        if (status == 101) {
            // Switching protocols: what follows is no longer HTTP; forward it as one stream.
            return new Frame(raw.toByteArray(), status, false, true);
        }
        boolean interim = status >= 100 && status < 200;
        if (interim || status == 204 || status == 304) {
            return new Frame(raw.toByteArray(), status, interim, false);
        }
        if (chunked) {
            copyChunks(raw);
            return new Frame(raw.toByteArray(), status, false, false);
        }
        if (contentLength >= 0) {
            copyExactly(raw, contentLength);
            return new Frame(raw.toByteArray(), status, false, false);
        }
        in.transferTo(raw);
        return new Frame(raw.toByteArray(), status, false, true);
    }

    private void copyChunks(ByteArrayOutputStream raw) throws IOException {
        while (true) {
            String sizeLine = readLine(raw, false);
            int semicolon = sizeLine.indexOf(';');
            String hex = (semicolon < 0 ? sizeLine : sizeLine.substring(0, semicolon)).trim();
            long size;
            try {
                size = Long.parseLong(hex, 16);
            } catch (NumberFormatException e) {
                throw new IOException("bad chunk size line");
            }
            if (size == 0) {
                // Trailers, then the empty line that ends the message.
                while (!readLine(raw, false).isEmpty()) {
                    // keep copying trailer lines
                }
                return;
            }
            copyExactly(raw, size);
            if (!readLine(raw, false).isEmpty()) {
                throw new IOException("chunk not followed by CRLF");
            }
        }
    }

    private void copyExactly(ByteArrayOutputStream raw, long length) throws IOException {
        byte[] buffer = new byte[8192];
        long left = length;
        while (left > 0) {
            int n = in.read(buffer, 0, (int) Math.min(buffer.length, left));
            if (n < 0) {
                throw new EOFException("the server closed the connection inside a response body");
            }
            raw.write(buffer, 0, n);
            left -= n;
        }
    }

    /**
     * Reads one CRLF-terminated line, copying its bytes (with the CRLF) to {@code raw}; returns it
     * without the line end. At end of stream: {@code null} if nothing was read and that is allowed,
     * else an {@link EOFException}.
     */
    private String readLine(ByteArrayOutputStream raw, boolean eofAllowed) throws IOException {
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        while (true) {
            int b = in.read();
            if (b < 0) {
                if (eofAllowed && line.size() == 0) {
                    return null;
                }
                throw new EOFException("the server closed the connection inside a response head");
            }
            raw.write(b);
            if (b == '\n') {
                byte[] bytes = line.toByteArray();
                int end = bytes.length > 0 && bytes[bytes.length - 1] == '\r' ? bytes.length - 1 : bytes.length;
                return new String(bytes, 0, end, StandardCharsets.ISO_8859_1);
            }
            line.write(b);
            if (line.size() > MAX_LINE_BYTES) {
                throw new IOException("response line longer than " + MAX_LINE_BYTES + " bytes");
            }
        }
    }

    private static int status(String statusLine) throws IOException {
        String[] parts = statusLine.split(" ", 3);
        if (parts.length < 2 || !parts[0].startsWith("HTTP/")) {
            throw new IOException("not an HTTP response");
        }
        try {
            return Integer.parseInt(parts[1]);
        } catch (NumberFormatException e) {
            throw new IOException("bad status code");
        }
    }

    private static long parseLength(String value) throws IOException {
        try {
            long length = Long.parseLong(value);
            if (length < 0) {
                throw new IOException("negative Content-Length");
            }
            return length;
        } catch (NumberFormatException e) {
            throw new IOException("bad Content-Length");
        }
    }
}
