package dev.idem.demo.payments;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.regex.Pattern;
import org.springframework.boot.convert.DurationStyle;
import org.springframework.core.env.Environment;

/**
 * The service's own flags, read from Spring's environment (so {@code --name=value} on the command line,
 * a property or an environment variable all work):
 *
 * <pre>
 * --variant=correct|key-after-effect|memory-store   default correct
 * --data-dir=DIR           SQLite file (and crash markers) here; default ./data/payments
 * --db=JDBC_URL            PostgreSQL instead of SQLite; default: environment variable IDEM_DEMO_DB, else SQLite
 * --gateway.url=URL        the card gateway; default http://127.0.0.1:8090
 * --gateway.timeout=10s    longest wait for one gateway answer (connecting: 2 s)
 * --crash-at=POINT         halt the process the first time a payment reaches POINT (see CrashPoint)
 * --events.kafka=HOST:PORT publish payment events through the outbox to this Kafka broker; default: no events
 * --events.topic=NAME      their topic; default payment-events
 * --coalesce=on|off|dialect  coalesced commits of the JDBC store forced on or off; default dialect (on for SQLite,
 *                          off for PostgreSQL). The starter's idem.coalesce-commits does not apply: the service builds its own store,
 *                          and that property can only turn coalescing off, not force it on where the dialect says off
 * </pre>
 *
 * @param coalesce {@code TRUE}/{@code FALSE} forced on/off; {@code null}: the dialect decides
 */
public record DemoSettings(Variant variant, Path dataDir, String db, URI gatewayUrl, Duration gatewayTimeout, CrashPoint crashAt,
                           String eventsKafka, String eventsTopic, Boolean coalesce) {
    public static final String DB_ENVIRONMENT_VARIABLE = "IDEM_DEMO_DB";
    static final String DEFAULT_DATA_DIR = "./data/payments";
    static final String DEFAULT_GATEWAY_URL = "http://127.0.0.1:8090";
    static final String DEFAULT_EVENTS_TOPIC = "payment-events";
    private static final Pattern BOOTSTRAP = Pattern.compile("[A-Za-z0-9.\\-]+:[0-9]{1,5}(,[A-Za-z0-9.\\-]+:[0-9]{1,5})*");
    private static final Pattern TOPIC = Pattern.compile("[A-Za-z0-9._\\-]{1,249}");

    /** @throws IllegalArgumentException naming the flag whose value is wrong */
    public static DemoSettings from(Environment env) {
        Variant variant = Variant.fromFlag(env.getProperty("variant", "correct").trim().toLowerCase(Locale.ROOT));
        Path dataDir = Path.of(env.getProperty("data-dir", DEFAULT_DATA_DIR)).toAbsolutePath().normalize();
        String db = env.getProperty("db");
        if (db == null || db.isBlank()) {
            db = System.getenv(DB_ENVIRONMENT_VARIABLE);
        }
        if (db != null && db.isBlank()) {
            db = null;
        }
        if (db != null && !db.startsWith("jdbc:postgresql:")) {
            throw new IllegalArgumentException("--db must be a PostgreSQL JDBC URL (jdbc:postgresql://host:port/db?user=...), was '"
                    + mask(db) + "'; without --db the service uses SQLite under --data-dir");
        }
        URI gateway;
        String gatewayText = env.getProperty("gateway.url", DEFAULT_GATEWAY_URL).trim();
        try {
            gateway = URI.create(gatewayText.endsWith("/") ? gatewayText.substring(0, gatewayText.length() - 1) : gatewayText);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("--gateway.url must be a URL such as http://127.0.0.1:8090, was '" + gatewayText + "'");
        }
        if (!"http".equals(gateway.getScheme()) && !"https".equals(gateway.getScheme()) || gateway.getHost() == null) {
            throw new IllegalArgumentException("--gateway.url must be an http(s) URL such as http://127.0.0.1:8090, was '" + gatewayText + "'");
        }
        String timeoutText = env.getProperty("gateway.timeout", "10s").trim();
        Duration timeout;
        try {
            timeout = DurationStyle.detectAndParse(timeoutText);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("--gateway.timeout must be a duration such as 10s or 500ms, was '" + timeoutText + "'");
        }
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("--gateway.timeout must be positive, was " + timeout);
        }
        String crash = env.getProperty("crash-at");
        CrashPoint crashAt = crash == null || crash.isBlank() ? null : CrashPoint.fromFlag(crash.trim().toLowerCase(Locale.ROOT));
        String kafka = env.getProperty("events.kafka");
        kafka = kafka == null || kafka.isBlank() ? null : kafka.trim();
        if (kafka != null && !BOOTSTRAP.matcher(kafka).matches()) {
            throw new IllegalArgumentException("--events.kafka must be host:port[,host:port...] of a Kafka broker, was '" + kafka + "'");
        }
        String topic = env.getProperty("events.topic", DEFAULT_EVENTS_TOPIC).trim();
        if (!TOPIC.matcher(topic).matches()) {
            throw new IllegalArgumentException("--events.topic must be a Kafka topic name (letters, digits, '.', '_', '-'; at most 249), was '"
                    + topic + "'");
        }
        return new DemoSettings(variant, dataDir, db, gateway, timeout, crashAt, kafka, topic, coalesce(env));
    }

    /** {@code --coalesce}: on, off, or dialect (the default); anything else is a start-up error naming the flag. */
    private static Boolean coalesce(Environment env) {
        String text = env.getProperty("coalesce", "dialect").trim().toLowerCase(Locale.ROOT);
        return switch (text) {
            case "on" -> Boolean.TRUE;
            case "off" -> Boolean.FALSE;
            case "dialect" -> null;
            default -> throw new IllegalArgumentException("--coalesce must be on, off or dialect, was '" + text + "'");
        };
    }

    /** The database as logs show it: the SQLite file, or the URL with its password masked. */
    public String databaseLabel() {
        return db == null ? "SQLite " + sqliteFile() : mask(db);
    }

    public Path sqliteFile() {
        return dataDir.resolve("payments.db");
    }

    static String mask(String url) {
        return url.replaceAll("(?i)password=[^&]*", "password=***");
    }
}
