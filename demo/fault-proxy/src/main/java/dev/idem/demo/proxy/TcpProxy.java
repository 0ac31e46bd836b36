package dev.idem.demo.proxy;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A plain TCP pass-through (any protocol: the lab puts it between service instances and PostgreSQL,
 * or the card gateway) with two switches for network faults:
 *
 * <ul>
 * <li>{@link #blackhole(Duration)}: for a while, nothing is forwarded in either direction. Connections
 *     stay open and new ones are accepted, but their bytes wait (as packets a partition drops are
 *     resent until it heals); a peer that gives up first times out.</li>
 * <li>{@link #cut()}: every open connection is reset on both sides at once.</li>
 * </ul>
 *
 * <pre>{@code
 * try (TcpProxy proxy = TcpProxy.builder("127.0.0.1", 5432).build().start()) {
 *     proxy.blackhole(Duration.ofSeconds(3));
 * }
 * }</pre>
 */
public final class TcpProxy extends ProxyServer {
    private static final int CONNECT_TIMEOUT_MILLIS = 2_000;
    private static final long POLL_MILLIS = 10;

    private final String upstreamHost;
    private final int upstreamPort;
    private final InetAddress bind;
    private final int listenPort;
    private final AtomicLong blackholes = new AtomicLong();
    private final AtomicLong cuts = new AtomicLong();
    private final AtomicLong upstreamFailures = new AtomicLong();
    private volatile long blackholeUntilNanos = System.nanoTime();

    private TcpProxy(Builder builder) {
        super("tcp-proxy");
        this.upstreamHost = builder.upstreamHost;
        this.upstreamPort = builder.upstreamPort;
        this.bind = builder.bind;
        this.listenPort = builder.port;
    }

    public static Builder builder(String upstreamHost, int upstreamPort) {
        return new Builder(upstreamHost, upstreamPort);
    }

    /** Binds and starts accepting; returns this proxy. */
    public TcpProxy start() throws IOException {
        listen(bind, listenPort);
        return this;
    }

    /** Forwards nothing, in either direction, for {@code duration} from now (extending a blackhole already on). */
    public void blackhole(Duration duration) {
        long until = System.nanoTime() + duration.toNanos();
        if (until - blackholeUntilNanos > 0) {
            blackholeUntilNanos = until;
        }
        blackholes.incrementAndGet();
    }

    /** Resets every open connection, both sides. */
    public void cut() {
        cuts.incrementAndGet();
        open.forEach(ProxyServer::reset);
    }

    /** As JSON, for the proxy's admin endpoint. */
    public String statsJson() {
        return "{\"connections\":" + connections.get() + ",\"open\":" + open.size() / 2 + ",\"blackholes\":" + blackholes.get()
                + ",\"cuts\":" + cuts.get() + ",\"upstreamFailures\":" + upstreamFailures.get() + "}";
    }

    @Override
    public String toString() {
        return "TCP pass-through to " + upstreamHost + ":" + upstreamPort;
    }

    @Override
    Runnable serveAccepted(Socket client) {
        return () -> serve(client);
    }

    private void serve(Socket client) {
        Socket upstream = new Socket();
        open.add(upstream);
        try {
            awaitOpen();
            try {
                upstream.connect(new InetSocketAddress(upstreamHost, upstreamPort), CONNECT_TIMEOUT_MILLIS);
            } catch (IOException e) {
                upstreamFailures.incrementAndGet();
                reset(client);
                return;
            }
            client.setTcpNoDelay(true);
            upstream.setTcpNoDelay(true);
            execute(() -> pump(client, upstream));
            pump(upstream, client);
        } catch (IOException e) {
            // One side went away; the finally closes both.
        } finally {
            closeQuietly(client);
            closeQuietly(upstream);
            open.remove(client);
            open.remove(upstream);
        }
    }

    /** Bytes from one side to the other; each chunk waits while a blackhole is on. */
    private void pump(Socket from, Socket to) {
        byte[] buffer = new byte[16 * 1024];
        try {
            InputStream in = from.getInputStream();
            OutputStream out = to.getOutputStream();
            int n;
            while ((n = in.read(buffer)) >= 0) {
                awaitOpen();
                out.write(buffer, 0, n);
                out.flush();
            }
            to.shutdownOutput();
        } catch (IOException e) {
            closeQuietly(from);
            closeQuietly(to);
        }
    }

    private void awaitOpen() throws IOException {
        while (blackholeUntilNanos - System.nanoTime() > 0) {
            if (closed()) {
                throw new SocketException("proxy closed");
            }
            try {
                Thread.sleep(POLL_MILLIS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new SocketException("interrupted");
            }
        }
    }

    /** Validates each setting as it is set. */
    public static final class Builder {
        private final String upstreamHost;
        private final int upstreamPort;
        private InetAddress bind = InetAddress.getLoopbackAddress();
        private int port;

        private Builder(String upstreamHost, int upstreamPort) {
            this.upstreamHost = Objects.requireNonNull(upstreamHost, "upstreamHost is null");
            FaultProxy.Builder.checkPort("upstream port", upstreamPort, false);
            this.upstreamPort = upstreamPort;
        }

        /** Default loopback. */
        public Builder bind(InetAddress address) {
            this.bind = Objects.requireNonNull(address, "bind address is null");
            return this;
        }

        /** Default 0: any free port. */
        public Builder listenPort(int port) {
            FaultProxy.Builder.checkPort("listen port", port, true);
            this.port = port;
            return this;
        }

        public TcpProxy build() {
            return new TcpProxy(this);
        }
    }
}
