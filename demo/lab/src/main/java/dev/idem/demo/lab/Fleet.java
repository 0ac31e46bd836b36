package dev.idem.demo.lab;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import tools.jackson.databind.json.JsonMapper;

/**
 * The running programs of one fleet: N payments-service instances on one PostgreSQL schema of their
 * own, reaching PostgreSQL through a TCP proxy (for blackholes) and the card gateway through another
 * (for latency), behind the fault proxy as a round-robin balancer that also loses some requests and
 * responses. A supervisor restarts an instance that exits; the instances' counters are read every
 * second, so a SIGKILLed life's counts are kept up to its last reading.
 */
final class Fleet implements AutoCloseable {
    private static final Duration START = Duration.ofSeconds(180);
    private static final Duration PROXY_START = Duration.ofSeconds(30);
    private static final Pattern POSTGRES_URL = Pattern.compile("jdbc:postgresql://([^/:?]+)(?::(\\d+))?/([^?]*)(\\?.*)?");
    private static final JsonMapper JSON = JsonMapper.builder().build();
    static final double DROP_REQUEST = 0.05;
    static final double DROP_RESPONSE = 0.15;

    private final RowContext context;
    private final Components components;
    private final String name;
    private final ServerVariant variant;
    private final int size;
    private final FleetCoalesce coalesce;
    private final String postgres;
    private final String schema;
    private final String applicationName;
    /** The instances reach PostgreSQL at {@link #postgres} itself, not through a TCP proxy (a multi-host failover URL). */
    private final boolean direct;
    private final List<Instance> instances = new ArrayList<>();
    private final List<ChildProcess> helpers = new CopyOnWriteArrayList<>();
    private final List<NemesisEvent> timeline = new CopyOnWriteArrayList<>();
    private final Map<Long, Map<String, Long>> countersByPid = new HashMap<>();
    /** What each instance's store said it does, by label: "on" or "off" coalesced commits, with the flag it was given. */
    private final Map<String, String> coalescing = new java.util.concurrent.ConcurrentSkipListMap<>();
    /** The arguments of each slot's first process; a restart uses them again. */
    private final Map<Integer, List<String>> argumentsBySlot = new java.util.concurrent.ConcurrentHashMap<>();
    private final ExecutorService supervisor = Executors.newCachedThreadPool(runnable -> {
        Thread thread = new Thread(runnable, "fleet-supervisor");
        thread.setDaemon(true);
        return thread;
    });
    private volatile boolean closing;
    private volatile long startNanos = System.nanoTime();
    private int restarts;
    private int balancerPort;
    private int postgresAdmin;
    private int gatewayPort;
    private int gatewayDirect;
    private int gatewayAdmin;

    /** One slot of the fleet: its port and data folder stay; its process changes with each restart. */
    final class Instance {
        final int index;
        final int port = Ports.free();
        volatile ChildProcess process;
        volatile boolean paused;
        volatile boolean restarting;

        Instance(int index) {
            this.index = index;
        }

        String label() {
            return "instance-" + (index + 1);
        }

        boolean up() {
            return process != null && process.alive() && !paused && !restarting;
        }
    }

    Fleet(RowContext context, Components components, String name, ServerVariant variant, FleetSettings settings, String postgres) {
        this(context, components, name, variant, settings, postgres, false);
    }

    /**
     * @param direct the instances connect to {@code postgres} as it is (a URL naming a primary and its
     *               standby, which the driver follows across a failover) instead of through the fleet's
     *               TCP proxy; the blackhole fault is then unavailable
     */
    Fleet(RowContext context, Components components, String name, ServerVariant variant, FleetSettings settings, String postgres,
          boolean direct) {
        this.direct = direct;
        this.context = context;
        this.components = components;
        this.name = name;
        this.variant = variant;
        this.size = settings.instances();
        this.coalesce = settings.coalesce();
        this.postgres = postgres;
        String tag = (context.runTag() + "_" + name).replaceAll("[^A-Za-z0-9_]", "_").toLowerCase(java.util.Locale.ROOT);
        this.schema = "lab_fleet_" + tag;
        this.applicationName = "idem-lab-fleet-" + tag;
    }

    /** Starts the proxies, the gateway, the instances (all at once) and the balancer; returns when every one is ready. */
    Fleet start() throws SQLException {
        createSchema();
        String db = direct ? postgres + (postgres.contains("?") ? "&" : "?") + "currentSchema=" + schema + "&ApplicationName="
                + applicationName : startPostgresProxy();
        startGateway();
        for (int i = 0; i < size; i++) {
            Instance instance = new Instance(i);
            instances.add(instance);
            argumentsBySlot.put(i, arguments(instance, db));
            instance.process = ChildProcess.start(components.paymentsService(), argumentsBySlot.get(i), log(instance));
        }
        for (Instance instance : instances) {
            instance.process.awaitReady(instance.port, PaymentsServiceContract.READINESS_PATH, START);
        }
        startBalancer();
        instances.forEach(this::readCounters);
        context.event(String.format("fleet %s: %d instances (variant %s) on PostgreSQL schema %s, balancer on :%d; coalesced commits %s", name,
                size, variant.flag(), schema, balancerPort, coalescing));
        return this;
    }

    /** The TCP proxy in front of PostgreSQL; returns the instances' JDBC URL through it, with the fleet's schema and application name. */
    private String startPostgresProxy() {
        Matcher url = POSTGRES_URL.matcher(postgres);
        if (!url.matches()) {
            throw new IllegalArgumentException("the fleet needs a PostgreSQL URL jdbc:postgresql://host[:port]/db?..., was "
                    + LabSettings.masked(postgres));
        }
        int pgProxy = Ports.free();
        postgresAdmin = Ports.free();
        startHelper("fleet-" + name + "-pg-proxy", List.of("--tcp", "--port", Integer.toString(pgProxy), "--upstream",
                url.group(1) + ":" + (url.group(2) == null ? "5432" : url.group(2)), "--admin-port", Integer.toString(postgresAdmin)), postgresAdmin);
        String params = url.group(4) == null ? "?" : url.group(4) + "&";
        return "jdbc:postgresql://127.0.0.1:" + pgProxy + "/" + url.group(3) + params + "currentSchema=" + schema
                + "&ApplicationName=" + applicationName + "&connectTimeout=5";
    }

    /** The card gateway (SQLite in the fleet's work folder, emptied) and the TCP proxy the instances reach it through. */
    private void startGateway() {
        gatewayDirect = Ports.free();
        ChildProcess gatewayProcess = ChildProcess.start(components.gateway(), List.of("--port", Integer.toString(gatewayDirect), "--data-dir",
                context.workDir("fleet-" + name).resolve("gateway").toString(), "--reset"), context.log("fleet-" + name + "-card-gateway.log"));
        helpers.add(gatewayProcess);
        gatewayProcess.awaitReady(gatewayDirect, "/health", PROXY_START);
        gatewayPort = Ports.free();
        gatewayAdmin = Ports.free();
        startHelper("fleet-" + name + "-gateway-proxy", List.of("--tcp", "--port", Integer.toString(gatewayPort), "--upstream",
                "127.0.0.1:" + gatewayDirect, "--admin-port", Integer.toString(gatewayAdmin)), gatewayAdmin);
    }

    /** The fault proxy as a round-robin balancer over the instances, losing some requests and responses. */
    private void startBalancer() {
        balancerPort = Ports.free();
        int admin = Ports.free();
        List<String> args = new ArrayList<>(List.of("--port", Integer.toString(balancerPort), "--drop-request", Double.toString(DROP_REQUEST),
                "--drop-response", Double.toString(DROP_RESPONSE), "--seed", Long.toString(context.seed()),
                "--admin-port", Integer.toString(admin)));
        instances.forEach(instance -> args.addAll(List.of("--upstream", "127.0.0.1:" + instance.port)));
        startHelper("fleet-" + name + "-balancer", args, admin);
    }

    private List<String> arguments(Instance instance, String db) {
        Path data = context.workDir("fleet-" + name).resolve(instance.label());
        List<String> args = new ArrayList<>(PaymentsServiceContract.arguments(instance.port, "http://127.0.0.1:" + gatewayPort, data, db,
                variant));
        // A client gives up on a gateway call well before the lab's own deadline.
        args.add("--gateway.timeout=5s");
        args.add("--coalesce=" + coalesce.serviceFlag(instance.index));
        return args;
    }

    private Path log(Instance instance) {
        return context.log("fleet-" + name + "-" + instance.label() + ".log");
    }

    private void startHelper(String logName, List<String> args, int adminPort) {
        ChildProcess process = ChildProcess.start(components.proxy(), args, context.log(logName + ".log"));
        helpers.add(process);
        process.awaitReady(adminPort, "/health", PROXY_START);
    }

    private void createSchema() throws SQLException {
        try (Connection c = DriverManager.getConnection(postgres); Statement st = c.createStatement()) {
            st.execute("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
            st.execute("CREATE SCHEMA " + schema);
        }
    }

    /** From now on, the timeline counts from here and the supervisor restarts an instance that exits. */
    void beginTraffic() {
        startNanos = System.nanoTime();
        supervisor.execute(this::supervise);
    }

    long startNanos() {
        return startNanos;
    }

    int balancerPort() {
        return balancerPort;
    }

    List<Instance> instances() {
        return instances;
    }

    void record(String kind, String target, String detail) {
        timeline.add(new NemesisEvent((System.nanoTime() - startNanos) / 1_000_000, kind, target, detail));
        context.event(kind + " " + target + ": " + detail);
    }

    List<NemesisEvent> timeline() {
        List<NemesisEvent> events = new ArrayList<>(timeline);
        events.sort(java.util.Comparator.comparingLong(NemesisEvent::atMillis));
        return events;
    }

    synchronized int restarts() {
        return restarts;
    }

    /** Every second: restart an instance that exited, and read every live instance's counters. */
    private void supervise() {
        while (!closing) {
            for (Instance instance : instances) {
                if (!instance.restarting && instance.process != null && !instance.process.alive() && !closing) {
                    instance.restarting = true;
                    supervisor.execute(() -> restart(instance));
                }
                if (instance.up()) {
                    readCounters(instance);
                }
            }
            ChildProcess.sleep(500);
        }
    }

    private void restart(Instance instance) {
        try {
            record("exited", instance.label(), "pid " + instance.process.pid() + " exited with " + instance.process.exitCode());
            if (closing) {
                return;
            }
            instance.process = ChildProcess.start(components.paymentsService(), argumentsBySlot.get(instance.index), log(instance));
            if (closing) {
                // The fleet closed while this start was on its way: no instance outlives it.
                instance.process.kill();
                return;
            }
            instance.process.awaitReady(instance.port, PaymentsServiceContract.READINESS_PATH, START);
            synchronized (this) {
                restarts++;
            }
            record("restart", instance.label(), "the supervisor restarted it (pid " + instance.process.pid() + ")");
        } catch (RuntimeException e) {
            if (!closing) {
                record("restart", instance.label(), "restart failed: " + e.getMessage().lines().findFirst().orElse(""));
            }
        } finally {
            instance.restarting = false;
        }
    }

    private void readCounters(Instance instance) {
        LabHttp.Result result = LabHttp.get(instance.port, "/internal/counters", Duration.ofSeconds(2));
        if (result.response() == null || result.response().status() != 200) {
            return;
        }
        Map<String, Long> counts = new HashMap<>();
        JSON.readTree(result.response().body()).properties().forEach(e -> counts.put(e.getKey(), e.getValue().asLong()));
        Long pid = counts.remove("pid");
        Long coalesces = counts.remove("coalescesCommits");
        if (coalesces != null && variant == ServerVariant.CORRECT) {
            coalescing.put(instance.label(), (coalesces == 1 ? "on" : "off") + " (--coalesce=" + coalesce.serviceFlag(instance.index) + ")");
        }
        if (pid != null) {
            synchronized (countersByPid) {
                countersByPid.put(pid, counts);
            }
        }
    }

    /** Each instance's coalesced commits as its store reported them (none for the memory-store control), by label. */
    Map<String, String> coalescing() {
        return Map.copyOf(coalescing);
    }

    /** A last reading of every live instance, then every life's last reading summed. */
    Map<String, Long> counters() {
        instances.stream().filter(Instance::up).forEach(this::readCounters);
        Map<String, Long> sum = new java.util.TreeMap<>();
        synchronized (countersByPid) {
            countersByPid.values().forEach(counts -> counts.forEach((k, v) -> sum.merge(k, v, Long::sum)));
        }
        return sum;
    }

    /** POST to the TCP proxy in front of PostgreSQL: forward nothing for a while. */
    boolean blackholePostgres(long millis) {
        return post(postgresAdmin, "/blackhole?millis=" + millis);
    }

    /** POST to the TCP proxy in front of the card gateway: hold its traffic for a while. */
    boolean holdGateway(long millis) {
        return post(gatewayAdmin, "/blackhole?millis=" + millis);
    }

    /** Pool pressure on one instance for a while. */
    boolean poolPressure(Instance instance, long millis) {
        return post(instance.port, "/internal/faults/pool-pressure?millis=" + millis);
    }

    private static boolean post(int port, String path) {
        LabHttp.Result result = LabHttp.exchange(port, "POST", path, Map.of(), "", Duration.ofSeconds(5));
        return result.response() != null && result.response().status() == 200;
    }

    /** pg_terminate_backend of every connection of this fleet's instances (by application name); the count. */
    int terminateConnections() throws SQLException {
        try (Connection c = DriverManager.getConnection(postgres);
             PreparedStatement st = c.prepareStatement("SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity"
                     + " WHERE application_name = ? AND pid <> pg_backend_pid()")) {
            st.setString(1, applicationName);
            try (ResultSet rs = st.executeQuery()) {
                rs.next();
                return rs.getInt(1);
            }
        }
    }

    /** The service's payment rows, read straight from PostgreSQL. */
    List<FleetChecker.PaymentRow> paymentRows() throws SQLException {
        List<FleetChecker.PaymentRow> rows = new ArrayList<>();
        try (Connection c = DriverManager.getConnection(postgres);
             Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT id, card, status, charge_id FROM " + schema + ".payment")) {
            while (rs.next()) {
                rows.add(new FleetChecker.PaymentRow(rs.getString(1), rs.getString(2), rs.getString(3), rs.getString(4)));
            }
        }
        return rows;
    }

    /** Charge requests the fleet's gateway answered as replays, by its idempotency key, asked directly. */
    Map<String, Long> gatewayReplays() {
        return Stack.replays(gatewayDirect);
    }

    /** Every charge the fleet's gateway has, asked directly (not through its proxy). */
    List<LedgerCharge> ledger() {
        return Stack.ledger(gatewayDirect);
    }

    /** Stops every process (a paused one is continued first, so it can exit), and drops the schema. */
    @Override
    public void close() {
        closing = true;
        supervisor.shutdownNow();
        try {
            supervisor.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        for (Instance instance : instances) {
            if (instance.process != null) {
                if (instance.paused) {
                    Signals.send("CONT", instance.process.pid());
                }
                instance.process.stop();
            }
        }
        helpers.forEach(ChildProcess::stop);
        try (Connection c = DriverManager.getConnection(postgres); Statement st = c.createStatement()) {
            st.execute("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
        } catch (SQLException e) {
            context.event("could not drop schema " + schema + ": " + e.getMessage());
        }
    }
}
