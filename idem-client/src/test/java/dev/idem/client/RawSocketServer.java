package dev.idem.client;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * An idempotent HTTP/1.1 server on a raw {@link ServerSocket} (127.0.0.1), for faults no HTTP server
 * library will produce: it reads the whole request, executes it (counted), and then — as scripted
 * per connection — closes without answering, resets the connection, sends a truncated body, or
 * stalls. A later request with the same key gets the stored response with
 * {@code Idempotent-Replayed: true}, as a real idempotent server would. One request per connection.
 */
final class RawSocketServer implements AutoCloseable {

    enum Fault {
        /** Answer normally. */
        NONE,
        /** Execute, then close the socket without a byte of response: the response is lost on the wire. */
        DROP,
        /** Execute, then reset the connection (RST, via SO_LINGER 0). */
        RESET,
        /** Execute, then send the headers and only part of the promised body: premature EOF. */
        TRUNCATE,
        /** Execute, then say nothing until the client gives up on the connection. */
        STALL
    }

    private final ServerSocket serverSocket;
    private final ExecutorService connections = Executors.newCachedThreadPool();
    private final Set<Socket> open = ConcurrentHashMap.newKeySet();
    private final Deque<Fault> faults = new ArrayDeque<>();
    private final List<String> keys = new ArrayList<>();
    private final Map<String, String> stored = new HashMap<>();
    private int executions;

    RawSocketServer() throws IOException {
        serverSocket = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread acceptor = new Thread(this::acceptLoop, "raw-socket-server");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    URI uri(String path) {
        return URI.create("http://127.0.0.1:" + serverSocket.getLocalPort() + path);
    }

    /** Faults for the next connections, in order; connections after them are answered normally. */
    synchronized RawSocketServer faults(Fault... next) {
        faults.addAll(List.of(next));
        return this;
    }

    synchronized int executions() {
        return executions;
    }

    /** The idempotency key of every request received, in order (null when absent). */
    synchronized List<String> keys() {
        return new ArrayList<>(keys);
    }

    private void acceptLoop() {
        while (!serverSocket.isClosed()) {
            try {
                Socket socket = serverSocket.accept();
                open.add(socket);
                connections.execute(() -> serve(socket));
            } catch (IOException e) {
                return; // closed
            }
        }
    }

    private void serve(Socket socket) {
        try (socket) {
            socket.setSoTimeout(10_000);
            InputStream in = new BufferedInputStream(socket.getInputStream());
            Map<String, String> headers = readHead(in);
            if (headers == null) {
                return;
            }
            int length = Integer.parseInt(headers.getOrDefault("content-length", "0"));
            in.readNBytes(length);
            String key = headers.get("idempotency-key");
            Fault fault;
            String body;
            boolean replay;
            synchronized (this) {
                keys.add(key);
                fault = faults.isEmpty() ? Fault.NONE : faults.poll();
                replay = key != null && stored.containsKey(key);
                if (replay) {
                    body = stored.get(key);
                } else {
                    executions++;
                    body = "payment-" + executions;
                    if (key != null) {
                        stored.put(key, body);
                    }
                }
            }
            OutputStream out = socket.getOutputStream();
            byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
            switch (fault) {
                case DROP:
                    return; // try-with-resources closes the socket: FIN, no response
                case RESET:
                    socket.setSoLinger(true, 0);
                    return;
                case TRUNCATE:
                    out.write(head(201, bytes.length + 50, replay));
                    out.write(bytes);
                    out.flush();
                    return;
                case STALL:
                    while (in.read() != -1) {
                        // wait for the client to close its side
                    }
                    return;
                default:
                    out.write(head(201, bytes.length, replay));
                    out.write(bytes);
                    out.flush();
            }
        } catch (IOException e) {
            // the client went away (timed out, closed) or close() ended a stall: part of the faults under test
        } finally {
            open.remove(socket);
        }
    }

    private static byte[] head(int status, int contentLength, boolean replay) {
        String head = "HTTP/1.1 " + status + " Created\r\n"
                + "Content-Type: text/plain; charset=utf-8\r\n"
                + "Content-Length: " + contentLength + "\r\n"
                + (replay ? "Idempotent-Replayed: true\r\n" : "")
                + "Connection: close\r\n\r\n";
        return head.getBytes(StandardCharsets.US_ASCII);
    }

    /** Reads the request line and headers; returns lower-cased header names, or null at EOF. */
    private static Map<String, String> readHead(InputStream in) throws IOException {
        ByteArrayOutputStream buffer = new ByteArrayOutputStream();
        int last4 = 0; // the last four bytes read, to spot the blank line that ends the head
        int b;
        while ((b = in.read()) != -1) {
            buffer.write(b);
            last4 = (last4 << 8) | b;
            if (last4 == 0x0D0A0D0A) {
                break;
            }
        }
        if (last4 != 0x0D0A0D0A) {
            return null;
        }
        String[] lines = buffer.toString(StandardCharsets.US_ASCII).split("\r\n");
        Map<String, String> headers = new HashMap<>();
        for (int i = 1; i < lines.length; i++) {
            int colon = lines[i].indexOf(':');
            if (colon > 0) {
                headers.put(lines[i].substring(0, colon).trim().toLowerCase(Locale.ROOT), lines[i].substring(colon + 1).trim());
            }
        }
        return headers;
    }

    @Override
    public void close() throws IOException {
        serverSocket.close();
        for (Socket socket : open) {
            socket.close(); // a blocking read is not interruptible; closing the socket ends a stall
        }
        connections.shutdownNow();
    }
}
