package dev.idem.spring;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A TCP proxy in front of a server that loses responses on the wire: on its first
 * {@code responsesToDrop} connections it forwards the request, reads the server's <em>complete</em>
 * response (so the server has handled the request and finished answering), and then closes the
 * client's socket without sending a byte of it. Later connections are forwarded both ways.
 */
final class DroppingProxy implements AutoCloseable {
    private final ServerSocket listener;
    private final int targetPort;
    private final int responsesToDrop;
    private final AtomicInteger connections = new AtomicInteger();
    private final List<byte[]> dropped = new CopyOnWriteArrayList<>();
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    private final Thread acceptor;

    DroppingProxy(int targetPort, int responsesToDrop) throws IOException {
        this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        this.targetPort = targetPort;
        this.responsesToDrop = responsesToDrop;
        this.acceptor = new Thread(this::accept, "dropping-proxy");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    int port() {
        return listener.getLocalPort();
    }

    /** The responses the server sent that the client never got, in full, as the server wrote them. */
    List<String> droppedResponses() {
        return dropped.stream().map(bytes -> new String(bytes, StandardCharsets.UTF_8)).toList();
    }

    private void accept() {
        while (!listener.isClosed()) {
            try {
                Socket client = listener.accept();
                sockets.add(client);
                boolean drop = connections.incrementAndGet() <= responsesToDrop;
                Thread handler = new Thread(() -> handle(client, drop), "dropping-proxy-connection");
                handler.setDaemon(true);
                handler.start();
            } catch (IOException e) {
                return; // closed
            }
        }
    }

    private void handle(Socket client, boolean drop) {
        try (client; Socket server = new Socket(InetAddress.getLoopbackAddress(), targetPort)) {
            sockets.add(server);
            Thread upstream = pump(client.getInputStream(), server.getOutputStream());
            if (drop) {
                dropped.add(readOneResponse(server.getInputStream()));
                client.setSoLinger(true, 0); // the connection dies: the client sees a reset or EOF, no response
            } else {
                copy(server.getInputStream(), client.getOutputStream());
            }
            upstream.interrupt();
        } catch (IOException e) {
            // a side closed: the connection is over
        }
    }

    private static Thread pump(InputStream in, OutputStream out) {
        Thread thread = new Thread(() -> {
            try {
                copy(in, out);
            } catch (IOException e) {
                // a side closed
            }
        }, "dropping-proxy-upstream");
        thread.setDaemon(true);
        thread.start();
        return thread;
    }

    private static void copy(InputStream in, OutputStream out) throws IOException {
        byte[] buffer = new byte[8192];
        int n;
        while ((n = in.read(buffer)) >= 0) {
            out.write(buffer, 0, n);
            out.flush();
        }
    }

    /** Reads one HTTP/1.1 response: head, then a Content-Length or chunked body. */
    static byte[] readOneResponse(InputStream in) throws IOException {
        ByteArrayOutputStream all = new ByteArrayOutputStream();
        String head = readHead(in, all);
        String lower = head.toLowerCase(Locale.ROOT);
        int lengthAt = lower.indexOf("\r\ncontent-length:");
        if (lengthAt >= 0) {
            int end = lower.indexOf("\r\n", lengthAt + 2);
            long length = Long.parseLong(head.substring(lengthAt + "\r\ncontent-length:".length(), end).trim());
            for (long i = 0; i < length; i++) {
                all.write(readByte(in));
            }
        } else if (lower.contains("\r\ntransfer-encoding: chunked")) {
            while (true) {
                String sizeLine = readLine(in, all);
                int size = Integer.parseInt(sizeLine.split(";")[0].trim(), 16);
                if (size == 0) {
                    while (!readLine(in, all).isEmpty()) {
                        // trailers
                    }
                    break;
                }
                for (int i = 0; i < size; i++) {
                    all.write(readByte(in));
                }
                readLine(in, all);
            }
        }
        return all.toByteArray();
    }

    private static String readHead(InputStream in, ByteArrayOutputStream all) throws IOException {
        StringBuilder head = new StringBuilder();
        while (true) {
            String line = readLine(in, all);
            if (line.isEmpty()) {
                return head.toString();
            }
            head.append(line).append("\r\n"); // the status line, then one header per line
        }
    }

    private static String readLine(InputStream in, ByteArrayOutputStream all) throws IOException {
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        while (true) {
            int b = readByte(in);
            all.write(b);
            if (b == '\n') {
                byte[] bytes = line.toByteArray();
                int length = bytes.length > 0 && bytes[bytes.length - 1] == '\r' ? bytes.length - 1 : bytes.length;
                return new String(bytes, 0, length, StandardCharsets.ISO_8859_1);
            }
            line.write(b);
        }
    }

    private static int readByte(InputStream in) throws IOException {
        int b = in.read();
        if (b < 0) {
            throw new IOException("the server closed the connection mid-response");
        }
        return b;
    }

    @Override
    public void close() throws IOException {
        listener.close();
        for (Socket socket : sockets) {
            socket.close();
        }
    }
}
