package dev.idem.demo.ledger;

import com.zaxxer.hikari.HikariDataSource;
import dev.idem.jdbc.Dialect;
import dev.idem.inbox.Inbox;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.Deque;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Pattern;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import tools.jackson.databind.json.JsonMapper;

/**
 * {@code java -jar ledger-consumer.jar --port P --kafka BOOTSTRAP --topic T --group G --mode inbox|no-inbox
 * [--data-dir DIR] [--db JDBC_URL] [--reset] [--crash-after N]}: consumes payment events and appends
 * them to a ledger until SIGTERM. Exit status 2 for bad flags, 1 if it cannot start, 3 at the crash point.
 */
@Command(name = "ledger-consumer", mixinStandardHelpOptions = true, sortOptions = false,
        description = {
                "The consumer half of the idem demo: reads payment events from a Kafka topic",
                "and appends them to a ledger table. --mode inbox writes each event once, across",
                "crashes and redeliveries; --mode no-inbox is the naive baseline, which writes a",
                "batch again when it is delivered again. HTTP on 127.0.0.1: GET /health, /ledger,",
                "/lag. With a fixed --port the consumer is a static group member",
                "(group.instance.id <group>-<port>): restarted on the same port after a crash, it",
                "takes its partitions back at once.",
                ""})
public final class LedgerConsumerMain implements Callable<Integer> {
    private static final Pattern TOPIC = Pattern.compile("[a-zA-Z0-9._-]{1,249}");
    private static final Pattern BOOTSTRAP = Pattern.compile("[^\\s,:]+:\\d{1,5}(,[^\\s,:]+:\\d{1,5})*");
    private static final Pattern GROUP = Pattern.compile("[\\x21-\\x7e]{1,200}");

    @Spec
    CommandSpec spec;

    @Option(names = "--port", required = true, paramLabel = "P",
            description = "Port of the HTTP side on 127.0.0.1; 0 picks a free one (and makes the consumer a dynamic group member).")
    int port;

    @Option(names = "--kafka", required = true, paramLabel = "BOOTSTRAP", description = "Kafka bootstrap servers, e.g. 127.0.0.1:9092.")
    String kafka;

    @Option(names = "--topic", required = true, paramLabel = "T", description = "The topic of payment events.")
    String topic;

    @Option(names = "--group", required = true, paramLabel = "G",
            description = "Consumer group id; in inbox mode also the inbox consumer name (1-200 visible ASCII characters).")
    String group;

    @Option(names = "--mode", required = true, paramLabel = "inbox|no-inbox", converter = Mode.Converter.class,
            description = "inbox: each event once (idem's inbox); no-inbox: the naive loop without deduplication.")
    Mode mode;

    @Option(names = "--data-dir", paramLabel = "DIR", defaultValue = "data/ledger",
            description = "Folder of the SQLite file ledger.db, when --db is not given (default: ${DEFAULT-VALUE}).")
    Path dataDir;

    @Option(names = "--db", paramLabel = "JDBC_URL",
            description = "A PostgreSQL or MariaDB JDBC URL instead of SQLite, e.g. jdbc:postgresql://127.0.0.1:5432/test?user=postgres")
    String db;

    @Option(names = "--reset", description = "At start, empty the ledger and (inbox mode) this consumer's inbox and quarantine rows.")
    boolean reset;

    @Option(names = "--crash-after", paramLabel = "N",
            description = "Halt (exit status 3) right after the database commit that brings the entries this process wrote to N or more, "
                    + "before the Kafka offsets are committed.")
    Integer crashAfter;

    public static void main(String[] args) {
        int exit = new CommandLine(new LedgerConsumerMain()).execute(args);
        if (exit != 0) {
            System.exit(exit);
        }
    }

    @Override
    public Integer call() throws InterruptedException {
        validate();
        long started = System.nanoTime();
        CrashPoint crash = crashAfter == null ? CrashPoint.never() : CrashPoint.after(crashAfter);
        JsonMapper json = PaymentEvent.jsonMapper();
        // Closed in reverse order, by the shutdown hook or a failed start: the loop first (it commits its offsets), the pool last.
        Deque<AutoCloseable> resources = new ConcurrentLinkedDeque<>();
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            closeAll(resources);
            stopped.countDown();
        }, "ledger-consumer-shutdown"));
        try {
            HikariDataSource dataSource = LedgerDatabase.open(dataDir, db);
            resources.push(dataSource);
            Dialect dialect;
            try (Connection c = dataSource.getConnection()) {
                dialect = Dialect.detect(c);
            }
            LedgerTable ledger = new LedgerTable(dataSource, dialect);
            ledger.migrate();
            Inbox inbox = null;
            if (mode == Mode.INBOX) {
                inbox = Inbox.builder(dataSource).dialect(dialect).build();
                inbox.migrate();
            }
            if (reset) {
                ledger.clear();
                if (inbox != null) {
                    forget(dataSource, inbox, group);
                }
            }
            // The HTTP port first: holding it is what makes the static member id <group>-<port> ours alone.
            Lag lag = new Lag(kafka, topic, group);
            resources.push(lag);
            AtomicReference<LedgerLoop> loop = new AtomicReference<>();
            LedgerHttp http = LedgerHttp.start(port, mode, () -> loop.get() == null ? LedgerLoop.State.STARTING : loop.get().state(),
                    ledger, lag::current, json);
            resources.push(http);
            System.out.printf("ledger-consumer listening on http://127.0.0.1:%d (mode %s, topic %s, group %s, %s%s) ready in %d ms%n",
                    http.port(), mode, topic, group, LedgerDatabase.describe(dataDir, db),
                    crashAfter == null ? "" : ", crash after " + crashAfter + " records", (System.nanoTime() - started) / 1_000_000);
            System.out.flush();
            KafkaSettings settings = new KafkaSettings(kafka, topic, group, port == 0 ? null : group + "-" + port);
            LedgerLoop consumer = mode == Mode.INBOX
                    ? new InboxLoop(inbox, settings, crash, json)
                    : new NaiveLoop(dataSource, settings, crash, json);
            resources.push(consumer);
            loop.set(consumer);
            consumer.start();
        } catch (SQLException | RuntimeException e) {
            closeAll(resources);
            System.err.println("ledger-consumer: cannot start: " + e.getMessage()
                    + (e.getCause() != null && e.getCause().getMessage() != null ? " (" + e.getCause().getMessage() + ")" : ""));
            return 1;
        }
        // Until SIGTERM (or the crash point, which halts without this).
        stopped.await();
        return 0;
    }

    private void validate() {
        if (port < 0 || port > 65535) {
            throw usage("--port must be 0-65535, was " + port);
        }
        if (!BOOTSTRAP.matcher(kafka).matches()) {
            throw usage("--kafka must be host:port[,host:port...], was '" + kafka + "'");
        }
        if (!TOPIC.matcher(topic).matches() || topic.equals(".") || topic.equals("..")) {
            throw usage("--topic must be a Kafka topic name (1-249 of a-z, A-Z, 0-9, '.', '_', '-'), was '" + topic + "'");
        }
        if (!GROUP.matcher(group).matches()) {
            throw usage("--group must have 1-200 visible ASCII characters (no spaces)");
        }
        if (db != null && !db.startsWith("jdbc:postgresql:") && !db.startsWith("jdbc:mariadb:")) {
            throw usage("--db must be a PostgreSQL or MariaDB JDBC URL (jdbc:postgresql:... or jdbc:mariadb:...); "
                    + "without it the ledger is SQLite under --data-dir");
        }
        if (crashAfter != null && crashAfter < 1) {
            throw usage("--crash-after must be at least 1, was " + crashAfter);
        }
    }

    private CommandLine.ParameterException usage(String message) {
        return new CommandLine.ParameterException(spec.commandLine(), message);
    }

    /** {@code --reset} in inbox mode: the inbox and quarantine rows of this consumer only (others may share the database). */
    private static void forget(HikariDataSource dataSource, Inbox inbox, String consumer) throws SQLException {
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(false);
            try {
                for (String table : new String[] {inbox.tableName(), inbox.quarantineTableName()}) {
                    try (PreparedStatement ps = c.prepareStatement("DELETE FROM " + table + " WHERE consumer = ?")) {
                        ps.setString(1, consumer);
                        ps.executeUpdate();
                    }
                }
                c.commit();
            } catch (SQLException | RuntimeException e) {
                c.rollback();
                throw e;
            } finally {
                c.setAutoCommit(true);
            }
        }
    }

    private static void closeAll(Deque<AutoCloseable> resources) {
        while (!resources.isEmpty()) {
            try {
                resources.pop().close();
            } catch (Exception e) {
                System.err.println("ledger-consumer: closing failed: " + e);
            }
        }
    }
}
