package dev.idem.bench;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * A minimal HTTP/1.1 client on one keep-alive socket, for the load driver: it writes a request and
 * reads the status, the two headers it needs and the body (Content-Length or chunked), and nothing
 * more, so the driver spends as little of the machine's two cores as it can.
 */
final class HttpConnection implements AutoCloseable {
    /** What the driver checks of a response. */
    record Response(int status, boolean replayed, int bodyLength) {
    }

    private final String host;
    private final int port;
    private Socket socket;
    private InputStream in;
    private OutputStream out;
    private final StringBuilder line = new StringBuilder(128);

    HttpConnection(String host, int port) {
        this.host = host;
        this.port = port;
    }

    Response post(String path, String idempotencyKey, byte[] body) throws IOException {
        if (socket == null) {
            socket = new Socket();
            socket.setTcpNoDelay(true);
            socket.connect(new InetSocketAddress(host, port), 5000);
            socket.setSoTimeout(30_000);
            in = new BufferedInputStream(socket.getInputStream(), 8192);
            out = socket.getOutputStream();
        }
        StringBuilder head = new StringBuilder(256)
                .append("POST ").append(path).append(" HTTP/1.1\r\n")
                .append("Host: ").append(host).append(':').append(port).append("\r\n")
                .append("Content-Type: application/json\r\n")
                .append("Content-Length: ").append(body.length).append("\r\n");
        if (idempotencyKey != null) {
            head.append("Idempotency-Key: ").append(idempotencyKey).append("\r\n");
        }
        head.append("\r\n");
        byte[] h = head.toString().getBytes(StandardCharsets.US_ASCII);
        byte[] request = new byte[h.length + body.length];
        System.arraycopy(h, 0, request, 0, h.length);
        System.arraycopy(body, 0, request, h.length, body.length);
        try {
            out.write(request);
            out.flush();
            return read();
        } catch (IOException e) {
            close();
            throw e;
        }
    }

    private Response read() throws IOException {
        String status = readLine();
        if (!status.startsWith("HTTP/1.1 ") || status.length() < 12) {
            throw new IOException("not an HTTP/1.1 status line: " + status);
        }
        int code = Integer.parseInt(status.substring(9, 12));
        long length = -1;
        boolean chunked = false;
        boolean replayed = false;
        boolean close = false;
        while (true) {
            String header = readLine();
            if (header.isEmpty()) {
                break;
            }
            int colon = header.indexOf(':');
            if (colon <= 0) {
                continue;
            }
            String name = header.substring(0, colon).trim().toLowerCase(Locale.ROOT);
            String value = header.substring(colon + 1).trim();
            switch (name) {
                case "content-length" -> length = Long.parseLong(value);
                case "transfer-encoding" -> chunked = value.toLowerCase(Locale.ROOT).contains("chunked");
                case "idempotent-replayed" -> replayed = value.equalsIgnoreCase("true");
                case "connection" -> close = value.equalsIgnoreCase("close");
                default -> {
                }
            }
        }
        int bodyLength;
        if (chunked) {
            bodyLength = 0;
            while (true) {
                String size = readLine();
                int semi = size.indexOf(';');
                int n = Integer.parseInt((semi < 0 ? size : size.substring(0, semi)).trim(), 16);
                if (n == 0) {
                    while (!readLine().isEmpty()) {
                        // trailers
                    }
                    break;
                }
                skip(n);
                bodyLength += n;
                readLine();
            }
        } else if (length >= 0) {
            skip(length);
            bodyLength = (int) length;
        } else {
            ByteArrayOutputStream rest = new ByteArrayOutputStream();
            in.transferTo(rest);
            bodyLength = rest.size();
            close = true;
        }
        if (close) {
            close();
        }
        return new Response(code, replayed, bodyLength);
    }

    private void skip(long n) throws IOException {
        long left = n;
        while (left > 0) {
            long skipped = in.skip(left);
            if (skipped <= 0) {
                if (in.read() < 0) {
                    throw new EOFException("connection closed in a body");
                }
                skipped = 1;
            }
            left -= skipped;
        }
    }

    private String readLine() throws IOException {
        line.setLength(0);
        while (true) {
            int b = in.read();
            if (b < 0) {
                throw new EOFException("connection closed");
            }
            if (b == '\n') {
                int end = line.length();
                if (end > 0 && line.charAt(end - 1) == '\r') {
                    line.setLength(end - 1);
                }
                return line.toString();
            }
            line.append((char) b);
        }
    }

    @Override
    public void close() {
        if (socket != null) {
            try {
                socket.close();
            } catch (IOException e) {
                // closing anyway
            }
            socket = null;
        }
    }
}
