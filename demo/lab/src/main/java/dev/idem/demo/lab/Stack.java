package dev.idem.demo.lab;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import dev.idem.testing.KafkaBroker;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The running programs of a lab: one card gateway (restarted on the same port when a scenario needs
 * other faults), one payments service (restarted on the same port for another variant or events
 * topic, or when a scenario kills it), and a fault proxy per scenario in front of the service. For
 * messaging scenarios also a Kafka broker (started on first need, for the rest of the lab) and a
 * ledger consumer per scenario.
 */
final class Stack implements AutoCloseable {
    private static final Duration GATEWAY_START = Duration.ofSeconds(30);
    private static final Duration SERVICE_START = Duration.ofSeconds(90);
    /** Several partitions, so the consumer's batches mix events of many payments, as in production. */
    private static final int TOPIC_PARTITIONS = 3;
    private static final JsonMapper JSON = JsonMapper.builder().build();

    private final Components components;
    private final LabSettings settings;
    private final Consumer<String> events;
    private final int gatewayPort = Ports.free();
    private final int servicePort = Ports.free();
    private ChildProcess gateway;
    private String gatewayFaults;
    private Duration gatewayRetention;
    private boolean gatewayReset;
    private ChildProcess service;
    private ServerVariant serviceVariant;
    private String serviceTopic;
    private Duration serviceRetention;
    private int serviceStarts;
    private KafkaBroker broker;

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
        ensureGateway(faults, null);
    }

    /**
     * Runs the gateway with these faults, keeping a charge's key for {@code retention} (null: its default,
     * 24 h), restarting it if it runs otherwise. The first start clears its ledger.
     */
    synchronized void ensureGateway(String faults, Duration retention) {
        if (gateway != null && gateway.alive() && faults.equals(gatewayFaults) && java.util.Objects.equals(retention, gatewayRetention)) {
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
        if (retention != null) {
            args.addAll(List.of("--retention-seconds", Long.toString(retention.toSeconds())));
        }
        if (!gatewayReset) {
            args.add("--reset");
            gatewayReset = true;
        }
        gateway = ChildProcess.start(components.gateway(), args, settings.logDir().resolve("card-gateway.log"));
        gateway.awaitReady(gatewayPort, "/health", GATEWAY_START);
        gatewayFaults = faults;
        gatewayRetention = retention;
        events.accept("card gateway up on :" + gatewayPort + " (faults: " + faults
                + (retention == null ? "" : ", keys kept " + retention.toSeconds() + " s") + ")");
    }

    /** Runs the payments service in this variant without payment events, replacing one of another variant or with events. */
    synchronized void ensureService(ServerVariant variant) {
        ensureService(variant, null);
    }

    /**
     * Runs the payments service in this variant, publishing its payment events to {@code topic} on the
     * lab's broker (null: no events), replacing one that runs otherwise.
     */
    synchronized void ensureService(ServerVariant variant, String topic) {
        ensureService(variant, topic, null);
    }

    /**
     * Runs the payments service in this variant, publishing its payment events to {@code topic} (null:
     * none) and keeping a key's response for {@code retention} (null: the service's 24 h), replacing
     * one that runs otherwise.
     */
    synchronized void ensureService(ServerVariant variant, String topic, Duration retention) {
        if (service != null && service.alive() && variant == serviceVariant && java.util.Objects.equals(topic, serviceTopic)
                && java.util.Objects.equals(retention, serviceRetention)) {
            return;
        }
        if (service != null) {
            service.stop();
        }
        serviceTopic = topic;
        serviceRetention = retention;
        startService(variant);
    }

    /** Starts the lab's Kafka broker if it is not running, and creates {@code topic} on it. */
    synchronized void ensureTopic(String topic) {
        kafka().createTopic(topic, TOPIC_PARTITIONS);
    }

    /** The lab's Kafka broker, started on first need and kept for the rest of the lab. */
    synchronized KafkaBroker kafka() {
        if (broker == null) {
            events.accept("starting a Kafka broker (KRaft, child JVM)");
            try {
                broker = KafkaBroker.start(components.kafkaClassPath());
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException("cannot start the Kafka broker", e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while starting the Kafka broker", e);
            }
            events.accept("Kafka broker up at " + broker.bootstrapServers() + " in " + broker.startTime().toMillis() + " ms");
        }
        return broker;
    }

    /**
     * Starts a ledger consumer of {@code topic} in {@code mode}; it is killed after its database commit
     * and before its offset commit {@code kills} times, then runs to the end.
     */
    synchronized LedgerConsumerRun startLedger(String scenarioId, ConsumerMode mode, String topic, int kills, int crashAfter) {
        int port = Ports.free();
        List<String> args = new ArrayList<>(List.of("--port", Integer.toString(port), "--kafka", broker.bootstrapServers(), "--topic", topic,
                "--group", "ledger-" + topic, "--mode", mode.flag(),
                "--data-dir", settings.workDir().resolve("ledger-" + scenarioId).toAbsolutePath().toString()));
        if (settings.db() != null) {
            args.addAll(List.of("--db", settings.db()));
        }
        // On a shared database, the first start empties the ledger table of an earlier scenario or run.
        return LedgerConsumerRun.start(components.ledgerConsumer(), port, args, settings.db() != null, settings.logDir().resolve("ledger-consumer-" + scenarioId + ".log"),
                kills, crashAfter, events);
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
        List<String> args = new ArrayList<>(PaymentsServiceContract.arguments(servicePort, "http://127.0.0.1:" + gatewayPort,
                settings.workDir().resolve("payments-" + variant.id()), settings.db(), variant));
        if (serviceTopic != null) {
            args.addAll(PaymentsServiceContract.eventArguments(broker.bootstrapServers(), serviceTopic));
        }
        if (serviceRetention != null) {
            args.add(PaymentsServiceContract.retentionArgument(serviceRetention));
        }
        service = ChildProcess.start(components.paymentsService(), args, settings.logDir().resolve("payments-service.log"));
        service.awaitReady(servicePort, PaymentsServiceContract.READINESS_PATH, SERVICE_START);
        serviceVariant = variant;
        serviceStarts++;
        events.accept("payments service up on :" + servicePort + " (variant " + variant.id()
                + (serviceTopic == null ? "" : ", events to " + serviceTopic)
                + (serviceRetention == null ? "" : ", responses kept " + serviceRetention.toSeconds() + " s") + ")");
    }

    Components components() {
        return components;
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
        return ledger(gatewayPort);
    }

    /** Charge requests the gateway answered as replays of a charge already made, by its idempotency key (GET /ledger's "replaysPerKey"). */
    static Map<String, Long> replays(int port) {
        LabHttp.Result result = LabHttp.get(port, "/ledger", Duration.ofSeconds(30));
        if (result.response() == null || result.response().status() != 200) {
            throw new IllegalStateException("GET /ledger on the card gateway failed: "
                    + (result.response() == null ? result.failure() : "status " + result.response().status()));
        }
        Map<String, Long> replays = new HashMap<>();
        JSON.readTree(result.response().body()).path("replaysPerKey").properties().forEach(e -> replays.put(e.getKey(), e.getValue().asLong()));
        return replays;
    }

    /** What the service recorded: every payment row's status by card ({@link PaymentsServiceContract#STATES_PATH}). */
    Map<String, String> paymentStates() {
        LabHttp.Result result = LabHttp.get(servicePort, PaymentsServiceContract.STATES_PATH, Duration.ofSeconds(30));
        if (result.response() == null || result.response().status() != 200) {
            throw new IllegalStateException("GET " + PaymentsServiceContract.STATES_PATH + " on the payments service failed: "
                    + (result.response() == null ? result.failure() : "status " + result.response().status()));
        }
        Map<String, String> states = new HashMap<>();
        JSON.readTree(result.response().body()).properties().forEach(e -> states.put(e.getKey(), e.getValue().asString()));
        return states;
    }

    /** Charges the gateway committed and has not answered yet (GET /ledger's "answersPending"). */
    int gatewayAnswersPending() {
        LabHttp.Result result = LabHttp.get(gatewayPort, "/ledger", Duration.ofSeconds(30));
        if (result.response() == null || result.response().status() != 200) {
            return 0;
        }
        return JSON.readTree(result.response().body()).path("answersPending").asInt();
    }

    /** Every charge the card gateway on {@code port} has. */
    static List<LedgerCharge> ledger(int port) {
        LabHttp.Result result = LabHttp.get(port, "/ledger", Duration.ofSeconds(30));
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
        if (broker != null) {
            broker.close();
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
