package dev.idem.testing;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketException;
import java.net.URI;
import java.nio.charset.StandardCharsets;

/**
 * HTTP/1.1 requests written byte for byte, for header values an HTTP client refuses to send
 * (java.net.http rejects control characters and turns non-ASCII into {@code ?}).
 */
public final class RawHttp {
    private static final int READ_TIMEOUT_MILLIS = 30_000;

    private RawHttp() {
    }

    /**
     * The whole response to a JSON POST whose {@code header} carries {@code value}'s bytes as they are.
     * The request goes out in one write: a server answers a bad header byte at once and closes, so a
     * client still writing the rest would fail with a broken pipe before it could read the answer.
     */
    public static String post(URI server, String path, String header, byte[] value, byte[] json) throws IOException {
        ByteArrayOutputStream request = new ByteArrayOutputStream();
        request.writeBytes(("POST " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                + "Content-Length: " + json.length + "\r\nConnection: close\r\n" + header + ": ").getBytes(StandardCharsets.ISO_8859_1));
        request.writeBytes(value);
        request.writeBytes("\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
        request.writeBytes(json);
        try (Socket socket = new Socket(server.getHost(), server.getPort())) {
            socket.setSoTimeout(READ_TIMEOUT_MILLIS);
            OutputStream out = socket.getOutputStream();
            out.write(request.toByteArray());
            out.flush();
            return readUntilClosed(socket.getInputStream());
        }
    }

    /** What the server sent before it closed; a reset after its answer (it left the body unread) ends it too. */
    private static String readUntilClosed(InputStream in) throws IOException {
        ByteArrayOutputStream answer = new ByteArrayOutputStream();
        byte[] buffer = new byte[4096];
        try {
            for (int n; (n = in.read(buffer)) >= 0; ) {
                answer.write(buffer, 0, n);
            }
        } catch (SocketException reset) {
            if (answer.size() == 0) {
                throw reset;
            }
        }
        return answer.toString(StandardCharsets.ISO_8859_1);
    }
}
