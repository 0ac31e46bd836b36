package dev.idem.demo.gateway;

import com.zaxxer.hikari.HikariDataSource;
import java.net.InetAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import tools.jackson.databind.json.JsonMapper;

/** {@code java -jar card-gateway.jar [options]}: runs the gateway until it is stopped. */
@Command(name = "card-gateway", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"A card gateway for the idem demo: POST /charges (Idempotency-Key required), GET|DELETE /ledger, GET /health.",
                "Per-request faults: header X-Fault, e.g. 'X-Fault: fail-after' (it replaces --fault for that request)."})
public final class CardGatewayMain implements Callable<Integer> {
    @Option(names = "--port", description = "Port to listen on; 0 picks a free one (default: ${DEFAULT-VALUE}).", defaultValue = "8090")
    int port;

    @Option(names = "--bind", description = "Address to listen on (default: ${DEFAULT-VALUE}).", defaultValue = "127.0.0.1")
    String bind;

    @Option(names = "--data-dir", description = "Folder of the SQLite file, when --db is not given (default: ${DEFAULT-VALUE}).",
            defaultValue = "data/gateway")
    Path dataDir;

    @Option(names = "--db", description = "JDBC URL of a PostgreSQL database instead of SQLite, e.g. jdbc:postgresql://127.0.0.1:5432/test?user=postgres")
    String db;

    @Option(names = "--reset", description = "Clear the ledger and the idempotency records at start.")
    boolean reset;

    @Option(names = "--fault", description = "Faults for every request: latency=<ms>, latency-after=<ms>, fail-before[=p], fail-after[=p], reset-after[=p], comma-separated (default: none).",
            defaultValue = "none")
    String fault;

    @Option(names = "--seed", description = "Seed of the generator that decides probabilistic faults (default: ${DEFAULT-VALUE}).", defaultValue = "1")
    long seed;

    @Option(names = "--retention-seconds", description = "How long a charge's Idempotency-Key replays its answer; after it the key is forgotten (default: ${DEFAULT-VALUE}, 24 h).",
            defaultValue = "86400")
    long retentionSeconds;

    @Option(names = "--threads", description = "Request threads (default: ${DEFAULT-VALUE}).", defaultValue = "32")
    int threads;

    public static void main(String[] args) {
        int exit = new CommandLine(new CardGatewayMain()).execute(args);
        if (exit != 0) {
            System.exit(exit);
        }
    }

    @Override
    public Integer call() throws Exception {
        long started = System.nanoTime();
        FaultPlan faults;
        try {
            faults = FaultPlan.parse(fault);
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(new CommandLine(this), "--fault: " + e.getMessage());
        }
        if (retentionSeconds < 1) {
            throw new CommandLine.ParameterException(new CommandLine(this), "--retention-seconds must be at least 1, was " + retentionSeconds);
        }
        GatewayConfig config = new GatewayConfig(InetAddress.getByName(bind), port, faults, seed, reset, threads,
                Duration.ofSeconds(retentionSeconds));
        CompletableFuture<JsonMapper> json = CompletableFuture.supplyAsync(CardGateway::jsonMapper);
        HikariDataSource dataSource = GatewayDatabase.open(dataDir, db);
        CardGateway gateway;
        try {
            gateway = CardGateway.start(config, dataSource, json.join());
        } catch (RuntimeException e) {
            dataSource.close();
            throw e;
        }
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            gateway.close();
            dataSource.close();
            stopped.countDown();
        }, "card-gateway-shutdown"));
        System.out.printf("card-gateway listening on %s (%s, faults: %s, seed %d, keys kept %d s) ready in %d ms%n",
                gateway.baseUrl(), GatewayDatabase.describe(dataDir, db), faults, seed, retentionSeconds, (System.nanoTime() - started) / 1_000_000);
        System.out.flush();
        stopped.await();
        return 0;
    }
}
