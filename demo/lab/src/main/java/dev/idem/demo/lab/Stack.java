package dev.idem.demo.lab;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The running programs of a lab: one card gateway (restarted on the same port when a scenario needs
 * other faults), one payments service (restarted on the same port for another variant, or when a
 * scenario kills it), and a fault proxy per scenario in front of the service.
 */
final class Stack implements AutoCloseable {
    private static final Duration GATEWAY_START = Duration.ofSeconds(30);
    private static final Duration SERVICE_START = Duration.ofSeconds(90);
    private static final JsonMapper JSON = JsonMapper.builder().build();

    private final Components components;
    private final LabSettings settings;
    private final Consumer<String> events;
    private final int gatewayPort = Ports.free();
    private final int servicePort = Ports.free();
    private ChildProcess gateway;
    private String gatewayFaults;
    private boolean gatewayReset;
    private ChildProcess service;
    private ServerVariant serviceVariant;
    private int serviceStarts;

    Stack(Components components, LabSettings settings, Consumer<String> events) {
        this.components = components;
        this.settings = settings;
        this.events = events;
    }

    int gatewayPort() {
        return gatewayPort;
    }

    int servicePort() {
        return servicePort;
    }

    /** Runs the gateway with these faults, restarting it if it runs with others. The first start clears its ledger. */
    synchronized void ensureGateway(String faults) {
        if (gateway != null && gateway.alive() && faults.equals(gatewayFaults)) {
            return;
        }
        if (gateway != null) {
            gateway.stop();
        }
        List<String> args = new ArrayList<>(List.of("--port", Integer.toString(gatewayPort),
                "--data-dir", settings.workDir().resolve("gateway").toAbsolutePath().toString(),
                "--fault", faults, "--seed", Long.toString(settings.seed())));
        if (settings.db() != null) {
            args.addAll(List.of("--db", settings.db()));
        }
        if (!gatewayReset) {
            args.add("--reset");
            gatewayReset = true;
        }
        gateway = ChildProcess.start(components.gateway(), args, settings.logDir().resolve("card-gateway.log"));
        gateway.awaitReady(gatewayPort, "/health", GATEWAY_START);
        gatewayFaults = faults;
        events.accept("card gateway up on :" + gatewayPort + " (faults: " + faults + ")");
    }

    /** Runs the payments service in this variant, replacing one of another variant. */
    synchronized void ensureService(ServerVariant variant) {
        if (service != null && service.alive() && variant == serviceVariant) {
            return;
        }
        if (service != null) {
            service.stop();
        }
        startService(variant);
    }

    /** SIGKILL, then a start on the same port and data. */
    synchronized void killAndRestartService() {
        service.kill();
        events.accept("payments service SIGKILLed (pid " + service.pid() + "), restarting");
        startService(serviceVariant);
    }

    /** An orderly stop (SIGTERM), then a start on the same port and data. */
    synchronized void restartService() {
        service.stop();
        events.accept("payments service stopped, restarting");
        startService(serviceVariant);
    }

    private void startService(ServerVariant variant) {
        List<String> args = PaymentsServiceContract.arguments(servicePort, "http://127.0.0.1:" + gatewayPort,
                settings.workDir().resolve("payments-" + variant.flag()), settings.db(), variant);
        service = ChildProcess.start(components.paymentsService(), args, settings.logDir().resolve("payments-service.log"));
        service.awaitReady(servicePort, PaymentsServiceContract.READINESS_PATH, SERVICE_START);
        serviceVariant = variant;
        serviceStarts++;
        events.accept("payments service up on :" + servicePort + " (variant " + variant.flag() + ")");
    }

    int serviceStarts() {
        return serviceStarts;
    }

    /** A proxy in front of the service with the fault's drop rates; the caller stops it. */
    ProxyProcess startProxy(Fault fault, long seed, String scenarioId) {
        int port = Ports.free();
        int admin = Ports.free();
        List<String> args = List.of("--port", Integer.toString(port), "--upstream", "127.0.0.1:" + servicePort,
                "--drop-request", Double.toString(fault.dropRequest()), "--drop-response", Double.toString(fault.dropResponse()),
                "--seed", Long.toString(seed), "--admin-port", Integer.toString(admin));
        ChildProcess process = ChildProcess.start(components.proxy(), args, settings.logDir().resolve("fault-proxy-" + scenarioId + ".log"));
        process.awaitReady(admin, "/health", GATEWAY_START);
        return new ProxyProcess(process, port, admin);
    }

    /** Every charge the gateway has. */
    List<LedgerCharge> ledger() {
        LabHttp.Result result = LabHttp.get(gatewayPort, "/ledger", Duration.ofSeconds(30));
        if (result.response() == null || result.response().status() != 200) {
            throw new IllegalStateException("GET /ledger on the card gateway failed: "
                    + (result.response() == null ? result.failure() : "status " + result.response().status()));
        }
        List<LedgerCharge> charges = new ArrayList<>();
        for (JsonNode row : JSON.readTree(result.response().body()).get("charges")) {
            charges.add(new LedgerCharge(row.get("chargeId").asString(), row.get("key").asString(), row.get("amount").asLong(),
                    row.get("currency").asString(), row.get("card").asString(),
                    row.get("reference").isNull() ? null : row.get("reference").asString(), row.get("createdAt").asString()));
        }
        return charges;
    }

    @Override
    public synchronized void close() {
        if (service != null) {
            service.stop();
        }
        if (gateway != null) {
            gateway.stop();
        }
    }

    /** A running proxy and the ports it listens on. */
    record ProxyProcess(ChildProcess process, int port, int adminPort) {
        /** The proxy's counters, from its admin endpoint. */
        Map<String, Long> stats() {
            LabHttp.Result result = LabHttp.get(adminPort, "/stats", Duration.ofSeconds(5));
            if (result.response() == null || result.response().status() != 200) {
                return Map.of();
            }
            Map<String, Long> stats = new java.util.LinkedHashMap<>();
            JSON.readTree(result.response().body()).properties().forEach(e -> stats.put(e.getKey(), e.getValue().asLong()));
            return stats;
        }

        void stop() {
            process.stop();
        }
    }
}
