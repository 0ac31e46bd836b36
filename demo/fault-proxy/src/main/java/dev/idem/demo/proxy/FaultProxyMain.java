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
                "A lost response reaches the client as a connection reset after the server has handled the request."})
public final class FaultProxyMain implements Callable<Integer> {
    @Option(names = "--upstream", required = true, description = "host:port of the server behind the proxy.")
    String upstream;

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
        int colon = upstream.lastIndexOf(':');
        if (colon <= 0) {
            throw new CommandLine.ParameterException(new CommandLine(this), "--upstream must be host:port, was '" + upstream + "'");
        }
        FaultProxy proxy;
        try {
            proxy = FaultProxy.builder(upstream.substring(0, colon), Integer.parseInt(upstream.substring(colon + 1)))
                    .bind(InetAddress.getByName(bind))
                    .listenPort(port)
                    .dropRequest(dropRequest)
                    .dropResponse(dropResponse)
                    .delay(Duration.ofMillis(delayMillis))
                    .seed(seed)
                    .build();
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(new CommandLine(this), e.getMessage());
        }
        proxy.start();
        HttpServer admin = adminPort == null ? null : startAdmin(proxy);
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            if (admin != null) {
                admin.stop(0);
            }
            proxy.close();
            stopped.countDown();
        }, "fault-proxy-shutdown"));
        System.out.printf("fault-proxy listening on %s:%d -> %s (%s)%s%n", bind, proxy.port(), upstream, proxy,
                admin == null ? "" : "; admin on http://" + bind + ":" + admin.getAddress().getPort());
        System.out.flush();
        stopped.await();
        return 0;
    }

    private HttpServer startAdmin(FaultProxy proxy) throws IOException {
        HttpServer admin = HttpServer.create(new InetSocketAddress(InetAddress.getByName(bind), adminPort), 16);
        admin.createContext("/stats", exchange -> respond(exchange, proxy.stats().toJson()));
        admin.createContext("/health", exchange -> respond(exchange, "{\"status\":\"UP\"}"));
        admin.start();
        return admin;
    }

    private static void respond(com.sun.net.httpserver.HttpExchange exchange, String json) throws IOException {
        try (exchange) {
            byte[] body = json.getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().add("Content-Type", "application/json");
            exchange.sendResponseHeaders(200, body.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        }
    }
}
