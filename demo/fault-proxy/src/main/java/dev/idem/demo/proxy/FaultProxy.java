package dev.idem.demo.proxy;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.time.Duration;
import java.util.Objects;
import java.util.Random;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A TCP proxy in front of an HTTP/1.1 server that loses messages on purpose.
 *
 * <ul>
 * <li>A <b>lost request</b>: the client's connection is reset after its request arrived at the proxy;
 *     the server never sees it.</li>
 * <li>A <b>lost response</b>: the request reaches the server, the proxy reads the server's whole
 *     response (so the server has done its work) and then resets the client's connection instead of
 *     passing the response on. This is the case that makes retries dangerous.</li>
 * </ul>
 *
 * Requests are forwarded as raw bytes; responses are framed ({@link HttpResponseFramer}) so one response
 * can be dropped on a keep-alive connection. Dropping one ends that connection, as a real network
 * failure would: the client cannot tell a dropped response from a dead server. Decisions come from two
 * generators seeded from one seed, one drawn per accepted connection and one per response, so the
 * n-th connection and the n-th response meet the same fate in every run with that seed.
 *
 * <p>With more than one upstream it is also a <b>round-robin load balancer</b>: each connection goes to
 * the next upstream in turn, and to the one after it when that one refuses the connection (a dead
 * instance); an {@link Upstream} can add its own response drops and delay to the proxy's.
 *
 * <pre>{@code
 * try (FaultProxy proxy = FaultProxy.builder("127.0.0.1", 8080).dropResponse(0.3).seed(42).build().start()) {
 *     // send to proxy.port()
 * }
 * }</pre>
 */
public final class FaultProxy extends ProxyServer {
    private static final int CONNECT_TIMEOUT_MILLIS = 2_000;

    private final Settings settings;
    private final Random requestDice;
    private final Random responseDice;
    private final AtomicLong requestsDropped = new AtomicLong();
    private final AtomicLong responsesForwarded = new AtomicLong();
    private final AtomicLong responsesDropped = new AtomicLong();
    private final AtomicLong upstreamFailures = new AtomicLong();
    private final AtomicLong failovers = new AtomicLong();
    private final AtomicInteger nextUpstream = new AtomicInteger();

    private FaultProxy(Settings settings) {
        super("fault-proxy");
        this.settings = settings;
        this.requestDice = new Random(settings.seed);
        this.responseDice = new Random(settings.seed * 31 + 17);
    }

    public static Builder builder(String upstreamHost, int upstreamPort) {
        return new Builder(upstreamHost, upstreamPort);
    }

    /** Binds and starts accepting; returns this proxy. */
    public FaultProxy start() throws IOException {
        listen(settings.bind, settings.port);
        return this;
    }

    public ProxyStats stats() {
        return new ProxyStats(connections.get(), requestsDropped.get(), responsesForwarded.get(), responsesDropped.get(),
                upstreamFailures.get(), failovers.get());
    }

    @Override
    public String toString() {
        return (settings.upstreams.size() > 1 ? "round-robin over " + settings.upstreams + ", " : "")
                + "drop-request " + settings.dropRequest + ", drop-response " + settings.dropResponse
                + ", delay " + settings.delay.toMillis() + " ms, seed " + settings.seed;
    }

    /** The request's fate is drawn here, in accept order, so the n-th connection meets the same one in every run. */
    @Override
    Runnable serveAccepted(Socket client) {
        boolean dropRequest = roll(requestDice, settings.dropRequest);
        return () -> serve(client, dropRequest);
    }

    private void serve(Socket client, boolean dropRequest) {
        Socket upstream = null;
        try {
            client.setTcpNoDelay(true);
            if (dropRequest) {
                loseRequest(client);
                return;
            }
            Connected connected = connectUpstream();
            if (connected == null) {
                upstreamFailures.incrementAndGet();
                reset(client);
                return;
            }
            upstream = connected.socket();
            Socket server = upstream;
            execute(() -> pumpRequests(client, server));
            relayResponses(client, upstream, connected.upstream());
        } catch (IOException e) {
            // One side went away; the finally closes the other.
        } finally {
            closeQuietly(client);
            open.remove(client);
            if (upstream != null) {
                closeQuietly(upstream);
                open.remove(upstream);
            }
        }
    }

    private record Connected(Socket socket, Upstream upstream) {
    }

    /** The next upstream in turn that accepts a connection, trying each once; null if none does. */
    private Connected connectUpstream() {
        int count = settings.upstreams.size();
        int first = Math.floorMod(nextUpstream.getAndIncrement(), count);
        for (int i = 0; i < count; i++) {
            Upstream target = settings.upstreams.get((first + i) % count);
            Socket socket = new Socket();
            open.add(socket);
            try {
                socket.connect(new InetSocketAddress(target.host(), target.port()), CONNECT_TIMEOUT_MILLIS);
                socket.setTcpNoDelay(true);
                if (i > 0) {
                    failovers.incrementAndGet();
                }
                return new Connected(socket, target);
            } catch (IOException e) {
                closeQuietly(socket);
                open.remove(socket);
            }
        }
        return null;
    }

    /** Waits until the request's first bytes arrive (so it was really sent), then resets the connection. */
    private void loseRequest(Socket client) throws IOException {
        client.setSoTimeout(5_000);
        try {
            client.getInputStream().read(new byte[8192]);
        } catch (IOException e) {
            // Nothing came, or the client left: either way, nothing reaches the server.
        }
        requestsDropped.incrementAndGet();
        reset(client);
    }

    /** Client to server, byte for byte; the client's end of stream is passed on as a half-close. */
    private static void pumpRequests(Socket client, Socket upstream) {
        try {
            client.getInputStream().transferTo(upstream.getOutputStream());
            upstream.shutdownOutput();
        } catch (IOException e) {
            closeQuietly(upstream);
        }
    }

    /** Server to client, one framed response at a time; each final response is forwarded or dropped. */
    private void relayResponses(Socket client, Socket upstream, Upstream target) throws IOException {
        HttpResponseFramer framer = new HttpResponseFramer(new java.io.BufferedInputStream(upstream.getInputStream()));
        var toClient = client.getOutputStream();
        HttpResponseFramer.Frame frame;
        while ((frame = framer.next()) != null) {
            if (!frame.interim() && roll(responseDice, either(settings.dropResponse, target.dropResponse()))) {
                responsesDropped.incrementAndGet();
                reset(client);
                return;
            }
            if (!frame.interim()) {
                pause(settings.delay.plus(target.delay()));
            }
            toClient.write(frame.bytes());
            toClient.flush();
            if (!frame.interim()) {
                responsesForwarded.incrementAndGet();
            }
            if (frame.untilClose()) {
                if (frame.status() == 101) {
                    upstream.getInputStream().transferTo(toClient);
                }
                return;
            }
        }
        client.shutdownOutput();
    }

    private static boolean roll(Random dice, double probability) {
        if (probability <= 0) {
            return false;
        }
        if (probability >= 1) {
            return true;
        }
        synchronized (dice) {
            return dice.nextDouble() < probability;
        }
    }

    /** The probability that at least one of two independent drops happens. */
    private static double either(double p, double q) {
        return 1 - (1 - p) * (1 - q);
    }

    private static void pause(Duration delay) {
        if (delay.isZero()) {
            return;
        }
        try {
            Thread.sleep(delay.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static final class Settings {
        private final java.util.List<Upstream> upstreams = new java.util.ArrayList<>();
        private InetAddress bind = InetAddress.getLoopbackAddress();
        private int port;
        private double dropRequest;
        private double dropResponse;
        private Duration delay = Duration.ZERO;
        private long seed = 1;

        private Settings copy() {
            Settings s = new Settings();
            s.upstreams.addAll(upstreams);
            s.bind = bind;
            s.port = port;
            s.dropRequest = dropRequest;
            s.dropResponse = dropResponse;
            s.delay = delay;
            s.seed = seed;
            return s;
        }
    }

    /** Validates each setting as it is set. */
    public static final class Builder {
        private final Settings settings;

        private Builder(String upstreamHost, int upstreamPort) {
            Objects.requireNonNull(upstreamHost, "upstreamHost is null");
            settings = new Settings();
            upstream(new Upstream(upstreamHost, upstreamPort, 0, Duration.ZERO));
        }

        /** One more server behind the proxy: connections then go round-robin over all of them. */
        public Builder upstream(Upstream upstream) {
            settings.upstreams.add(Objects.requireNonNull(upstream, "upstream is null"));
            return this;
        }

        /** Default loopback. */
        public Builder bind(InetAddress address) {
            settings.bind = Objects.requireNonNull(address, "bind address is null");
            return this;
        }

        /** Default 0: any free port. */
        public Builder listenPort(int port) {
            checkPort("listen port", port, true);
            settings.port = port;
            return this;
        }

        /** Probability (0-1) that a connection's request is lost before it reaches the server. Default 0. */
        public Builder dropRequest(double probability) {
            settings.dropRequest = probability("dropRequest", probability);
            return this;
        }

        /** Probability (0-1) that a response is lost after the server sent it. Default 0. */
        public Builder dropResponse(double probability) {
            settings.dropResponse = probability("dropResponse", probability);
            return this;
        }

        /** Held before each response is passed on. Default none. */
        public Builder delay(Duration delay) {
            Objects.requireNonNull(delay, "delay is null");
            if (delay.isNegative()) {
                throw new IllegalArgumentException("delay must not be negative, was " + delay);
            }
            settings.delay = delay;
            return this;
        }

        /** Default 1. */
        public Builder seed(long seed) {
            settings.seed = seed;
            return this;
        }

        public FaultProxy build() {
            return new FaultProxy(settings.copy());
        }

        private static double probability(String name, double p) {
            if (!(p >= 0 && p <= 1)) {
                throw new IllegalArgumentException(name + " must be a probability 0-1, was " + p);
            }
            return p;
        }

        static void checkPort(String name, int port, boolean zeroAllowed) {
            if (port < (zeroAllowed ? 0 : 1) || port > 65535) {
                throw new IllegalArgumentException(name + " must be " + (zeroAllowed ? 0 : 1) + "-65535, was " + port);
            }
        }
    }
}
