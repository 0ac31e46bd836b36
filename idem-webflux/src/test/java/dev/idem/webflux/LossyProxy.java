package dev.idem.webflux;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A TCP proxy in front of a test server that can lose a response the way a network does: the server
 * sends it in full (its request was not cancelled, its effect stands) and the client never gets it.
 * When the client side closes (a client timeout), the server side stays open, so the server sees no
 * cancellation either. Plain blocking sockets on the proxy's own threads.
 */
final class LossyProxy implements AutoCloseable {
    private final ServerSocket listener;
    private final int upstreamPort;
    private final AtomicBoolean dropNextResponse = new AtomicBoolean();
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    private volatile boolean closed;

    LossyProxy(URI upstream) throws IOException {
        this.upstreamPort = upstream.getPort();
        this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        start("lossy-proxy-accept", this::acceptLoop);
    }

    URI uri(String path) {
        return URI.create("http://127.0.0.1:" + listener.getLocalPort() + path);
    }

    /** The next response to start arriving from the server is swallowed and its client connection closed. */
    void dropNextResponse() {
        dropNextResponse.set(true);
    }

    private void acceptLoop() {
        while (!closed) {
            Socket client;
            try {
                client = track(listener.accept());
            } catch (IOException e) {
                return; // closed
            }
            try {
                Socket server = track(new Socket(InetAddress.getLoopbackAddress(), upstreamPort));
                start("lossy-proxy-request", () -> requests(client, server));
                start("lossy-proxy-response", () -> responses(server, client));
            } catch (IOException serverDown) {
                closeQuietly(client); // the server is down (killed, restarting): the client's connection fails, as it would
            }
        }
    }

    /** Client to server; when the client goes away the server side is left alone, as a lost packet leaves it. */
    private static void requests(Socket client, Socket server) {
        try (InputStream in = client.getInputStream()) {
            OutputStream out = server.getOutputStream();
            byte[] buffer = new byte[8192];
            for (int n; (n = in.read(buffer)) > 0; ) {
                out.write(buffer, 0, n);
                out.flush();
            }
        } catch (IOException ignored) {
            // the client closed or the proxy is closing
        }
    }

    private static void closeQuietly(Socket socket) {
        try {
            socket.close();
        } catch (IOException ignored) {
            // closing anyway
        }
    }

    /** Server to client, unless this response is the one to lose: then the client's connection is closed instead. */
    private void responses(Socket server, Socket client) {
        boolean clientGone = false;
        try (InputStream in = server.getInputStream()) {
            byte[] buffer = new byte[8192];
            for (int n; (n = in.read(buffer)) > 0; ) {
                if (!clientGone && dropNextResponse.compareAndSet(true, false)) {
                    clientGone = true;
                    client.close();
                }
                if (!clientGone) {
                    try {
                        client.getOutputStream().write(buffer, 0, n);
                        client.getOutputStream().flush();
                    } catch (IOException e) {
                        clientGone = true; // the client closed (timed out); keep draining the server
                    }
                }
            }
        } catch (IOException ignored) {
            // the server went away (killed) or the proxy is closing
        }
        closeQuietly(client); // the server's side ended: so does the client's, as a reset connection would
    }

    private Socket track(Socket socket) {
        sockets.add(socket);
        return socket;
    }

    private static void start(String name, Runnable task) {
        Thread thread = new Thread(task, name);
        thread.setDaemon(true);
        thread.start();
    }

    @Override
    public void close() throws IOException {
        closed = true;
        listener.close();
        for (Socket socket : sockets) {
            socket.close();
        }
    }
}
