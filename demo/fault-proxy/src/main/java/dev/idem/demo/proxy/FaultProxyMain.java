package dev.idem.demo.proxy;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code java -jar fault-proxy.jar --upstream 127.0.0.1:8080 [options]}: runs a proxy until it is stopped. */
@Command(name = "fault-proxy", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"A TCP proxy for HTTP/1.1 that loses requests and responses on purpose.",
                "A lost response reaches the client as a connection reset after the server has handled the request.",
                "With several --upstream, a round-robin load balancer (a refused connection goes to the next upstream).",
                "With --tcp, a plain pass-through of any protocol (e.g. PostgreSQL) whose admin port takes",
                "POST /blackhole?millis=N (forward nothing for N ms) and POST /cut (reset every open connection)."})
public final class FaultProxyMain implements Callable<Integer> {
    @Option(names = "--upstream", required = true, description = {"host:port of the server behind the proxy; repeat it for a",
            "round-robin balancer, each optionally with faults of its own: host:port;drop-response=P;delay-ms=N."})
    java.util.List<String> upstreams;

    @Option(names = "--tcp", description = "A plain TCP pass-through with a blackhole switch (one --upstream; no drops or delay).")
    boolean tcp;

    @Option(names = "--port", description = "Port to listen on; 0 picks a free one (default: ${DEFAULT-VALUE}).", defaultValue = "8070")
    int port;

    @Option(names = "--bind", description = "Address to listen on (default: ${DEFAULT-VALUE}).", defaultValue = "127.0.0.1")
    String bind;

    @Option(names = "--drop-request", description = "Probability 0-1 of losing a connection's request before the server (default: ${DEFAULT-VALUE}).",
            defaultValue = "0")
    double dropRequest;

    @Option(names = "--drop-response", description = "Probability 0-1 of losing a response after the server handled the request (default: ${DEFAULT-VALUE}).",
            defaultValue = "0")
    double dropResponse;

    @Option(names = "--delay-ms", description = "Delay before passing each response on (default: ${DEFAULT-VALUE}).", defaultValue = "0")
    long delayMillis;

    @Option(names = "--seed", description = "Seed of the drop decisions (default: ${DEFAULT-VALUE}).", defaultValue = "1")
    long seed;

    @Option(names = "--admin-port", description = "If given, serve GET /stats (JSON counters) and GET /health on this port (0: a free one).")
    Integer adminPort;

    public static void main(String[] args) {
        int exit = new CommandLine(new FaultProxyMain()).execute(args);
        if (exit != 0) {
            System.exit(exit);
        }
    }

    @Override
    public Integer call() throws Exception {
        if (tcp) {
            return runTcp();
        }
        FaultProxy proxy;
        try {
            java.util.List<Upstream> targets = upstreams.stream().map(Upstream::parse).toList();
            FaultProxy.Builder builder = FaultProxy.builder(targets.get(0).host(), targets.get(0).port());
            targets.stream().skip(1).forEach(builder::upstream);
            proxy = builder.bind(InetAddress.getByName(bind))
                    .listenPort(port)
                    .dropRequest(dropRequest)
                    .dropResponse(dropResponse)
                    .delay(Duration.ofMillis(delayMillis))
                    .seed(seed)
                    .build();
            if (targets.size() == 1 && (targets.get(0).dropResponse() > 0 || !targets.get(0).delay().isZero())) {
                throw new IllegalArgumentException("an upstream's own faults need a balancer (two or more --upstream); "
                        + "with one, use --drop-response and --delay-ms");
            }
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(new CommandLine(this), e.getMessage());
        }
        proxy.start();
        return runUntilStopped(proxy, startAdmin(() -> proxy.stats().toJson(), null), "fault-proxy-shutdown",
                String.format("fault-proxy listening on %s:%d -> %s (%s)", bind, proxy.port(), String.join(", ", upstreams), proxy));
    }

    /** {@code --tcp}: the pass-through, until stopped. */
    private int runTcp() throws Exception {
        if (upstreams.size() != 1 || dropRequest != 0 || dropResponse != 0 || delayMillis != 0) {
            throw new CommandLine.ParameterException(new CommandLine(this),
                    "--tcp takes exactly one --upstream and no --drop-request, --drop-response or --delay-ms");
        }
        TcpProxy proxy;
        try {
            Upstream target = Upstream.parse(upstreams.get(0));
            proxy = TcpProxy.builder(target.host(), target.port()).bind(InetAddress.getByName(bind)).listenPort(port).build();
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(new CommandLine(this), e.getMessage());
        }
        proxy.start();
        return runUntilStopped(proxy, startAdmin(proxy::statsJson, proxy), "tcp-proxy-shutdown",
                String.format("fault-proxy --tcp listening on %s:%d -> %s", bind, proxy.port(), upstreams.get(0)));
    }

    /**
     * Both modes, once their proxy runs: a shutdown hook that stops the admin server and the proxy,
     * the start-up line (which the lab waits for), then waiting for that hook; returns the exit code 0.
     */
    private int runUntilStopped(ProxyServer proxy, HttpServer admin, String hookName, String listening) throws InterruptedException {
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            if (admin != null) {
                admin.stop(0);
            }
            proxy.close();
            stopped.countDown();
        }, hookName));
        System.out.println(listening + (admin == null ? "" : "; admin on http://" + bind + ":" + admin.getAddress().getPort()));
        System.out.flush();
        stopped.await();
        return 0;
    }

    /** GET /stats and /health; with a TCP proxy also POST /blackhole?millis=N and POST /cut. Null without --admin-port. */
    private HttpServer startAdmin(java.util.function.Supplier<String> stats, TcpProxy tcpProxy) throws IOException {
        if (adminPort == null) {
            return null;
        }
        HttpServer admin = HttpServer.create(new InetSocketAddress(InetAddress.getByName(bind), adminPort), 16);
        admin.createContext("/stats", exchange -> respond(exchange, 200, stats.get()));
        admin.createContext("/health", exchange -> respond(exchange, 200, "{\"status\":\"UP\"}"));
        if (tcpProxy != null) {
            admin.createContext("/blackhole", exchange -> {
                Long millis = millis(exchange.getRequestURI().getRawQuery());
                if (!"POST".equals(exchange.getRequestMethod()) || millis == null) {
                    respond(exchange, 400, "{\"error\":\"POST /blackhole?millis=N, N 1-600000\"}");
                    return;
                }
                tcpProxy.blackhole(Duration.ofMillis(millis));
                respond(exchange, 200, stats.get());
            });
            admin.createContext("/cut", exchange -> {
                if (!"POST".equals(exchange.getRequestMethod())) {
                    respond(exchange, 400, "{\"error\":\"POST /cut\"}");
                    return;
                }
                tcpProxy.cut();
                respond(exchange, 200, stats.get());
            });
        }
        admin.start();
        return admin;
    }

    /** The {@code millis} query parameter if it is 1-600000, else null. */
    private static Long millis(String query) {
        if (query == null || !query.startsWith("millis=")) {
            return null;
        }
        try {
            long millis = Long.parseLong(query.substring("millis=".length()));
            return millis >= 1 && millis <= 600_000 ? millis : null;
        } catch (NumberFormatException e) {
            return null;
        }
    }

    private static void respond(com.sun.net.httpserver.HttpExchange exchange, int status, String json) throws IOException {
        try (exchange) {
            byte[] body = json.getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().add("Content-Type", "application/json");
            exchange.sendResponseHeaders(status, body.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        }
    }
}
