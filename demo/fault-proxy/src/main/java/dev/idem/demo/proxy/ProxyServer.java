package dev.idem.demo.proxy;

import java.io.Closeable;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What {@link FaultProxy} and {@link TcpProxy} share: the listening socket, the accept loop, the
 * daemon threads that serve connections, the set of open sockets that {@link #close()} cuts, and
 * closing a socket with a reset. A subclass decides, per accepted connection, how it is served.
 */
abstract class ProxyServer implements AutoCloseable {
    /** Every socket of a live connection, both sides: closing the proxy closes them all. */
    final Set<Socket> open = ConcurrentHashMap.newKeySet();
    /** Connections accepted. */
    final AtomicLong connections = new AtomicLong();
    private final String name;
    private ServerSocket server;
    private ExecutorService threads;
    private volatile boolean closed;

    /** @param name the threads' prefix and the name in the accept loop's error line */
    ProxyServer(String name) {
        this.name = name;
    }

    /**
     * Called on the accept thread, in the order connections arrive (so a decision drawn here is the
     * same for the n-th connection in every run); returns what serves the connection on a thread of its own.
     */
    abstract Runnable serveAccepted(Socket client);

    /** Binds and starts accepting. */
    final synchronized void listen(InetAddress bind, int port) throws IOException {
        if (server != null) {
            throw new IllegalStateException("proxy already started");
        }
        ServerSocket socket = new ServerSocket();
        socket.setReuseAddress(true);
        socket.bind(new InetSocketAddress(bind, port), 256);
        server = socket;
        AtomicInteger count = new AtomicInteger();
        threads = Executors.newCachedThreadPool(runnable -> {
            Thread thread = new Thread(runnable, name + "-" + count.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        });
        threads.execute(this::acceptLoop);
    }

    public int port() {
        return server.getLocalPort();
    }

    final boolean closed() {
        return closed;
    }

    /** Runs {@code task} on one of the proxy's threads (the other direction of a connection). */
    final void execute(Runnable task) {
        threads.execute(task);
    }

    /** Stops accepting and cuts every open connection. */
    @Override
    public synchronized void close() {
        closed = true;
        if (server != null) {
            closeQuietly(server);
        }
        open.forEach(ProxyServer::closeQuietly);
        if (threads != null) {
            threads.shutdownNow();
        }
    }

    private void acceptLoop() {
        while (!closed) {
            Socket client;
            try {
                client = server.accept();
            } catch (IOException e) {
                if (!closed) {
                    System.err.println(name + ": accept failed: " + e.getMessage());
                }
                return;
            }
            connections.incrementAndGet();
            open.add(client);
            threads.execute(serveAccepted(client));
        }
    }

    /** Closes with SO_LINGER 0: the peer gets a TCP RST, not an orderly end of stream. */
    static void reset(Socket socket) {
        try {
            socket.setSoLinger(true, 0);
        } catch (SocketException ignored) {
            // Already closed.
        }
        closeQuietly(socket);
    }

    static void closeQuietly(Closeable closeable) {
        try {
            closeable.close();
        } catch (IOException ignored) {
            // Closing is best effort.
        }
    }
}
