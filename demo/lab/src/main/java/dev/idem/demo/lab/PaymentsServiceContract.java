package dev.idem.demo.lab;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Everything the lab assumes about the payments service, in one place. The service (a Spring Boot
 * application on idem's starter) is started as a child process with these flags and driven over
 * these URLs.
 *
 * <pre>
 * java -Xmx256m -jar demo/payments-service/target/payments-service.jar \
 *      --server.port=P --gateway.url=http://127.0.0.1:G --data-dir=DIR [--db=JDBC_URL] \
 *      [--variant=correct|key-after-effect|memory-store] [--crash-at=POINT] [--idem.retention=2000ms] [--idem.tombstones=1h]
 *
 * POST /payments   {"amount":1250,"currency":"EUR","card":"..."}   Idempotency-Key optional
 *   201 {"id":"...","status":"paid","chargeId":"...","amount":1250,"currency":"EUR"}
 *   a replay carries "Idempotent-Replayed: true"; 409 + Retry-After while the key is in progress;
 *   422 for the key reused with another body; with idem.tombstones, 410 urn:idem:problem:key-expired for the
 *   key retried after its response's retention; 4xx application/problem+json for bad input
 * GET  /payments/{id}
 * GET  /internal/payments/states  → {"card": "pending" | "paid", ...}: every payment row the service has
 * GET  /actuator/health  → 200 when ready
 * </pre>
 *
 * The service passes {@code card} to the gateway unchanged: the lab joins the gateway's ledger to its
 * own records by card, which is unique per logical payment. Without an {@code Idempotency-Key} the
 * service executes every request (that is what the no-key strategy measures).
 */
public final class PaymentsServiceContract {
    /** Where the build puts the service (relative to the repository root). */
    public static final Path DEFAULT_JAR = Path.of("demo", "payments-service", "target", "payments-service.jar");
    /** Answers 200 once the service takes requests. The one place the lab names it. */
    public static final String READINESS_PATH = "/actuator/health";
    public static final String PAYMENTS_PATH = "/payments";
    public static final String KEY_HEADER = "Idempotency-Key";
    public static final String REPLAYED_HEADER = "Idempotent-Replayed";
    /** Every payment row's status by card: what the service recorded, whatever its clients saw. */
    public static final String STATES_PATH = "/internal/payments/states";
    /** A payment row's status once the charge is recorded on it. */
    public static final String PAID = "paid";
    /** The problem type of the 410 a tombstone answers: the key's request completed, its response is no longer kept. */
    public static final String KEY_EXPIRED_TYPE = "urn:idem:problem:key-expired";

    private PaymentsServiceContract() {
    }

    /** The service's command-line arguments. */
    public static List<String> arguments(int port, String gatewayUrl, Path dataDir, String db, ServerVariant variant) {
        List<String> args = new ArrayList<>();
        args.add("--server.port=" + port);
        args.add("--gateway.url=" + gatewayUrl);
        args.add("--data-dir=" + dataDir.toAbsolutePath());
        if (db != null) {
            args.add("--db=" + db);
        }
        args.add("--variant=" + variant.flag());
        args.addAll(variant.settings());
        return args;
    }

    /** The argument that keeps a key's response for {@code retention} instead of the service's 24 h. */
    public static String retentionArgument(Duration retention) {
        return "--idem.retention=" + retention.toMillis() + "ms";
    }

    /** The arguments that make the service publish its payment events through the outbox to a Kafka topic. */
    public static List<String> eventArguments(String kafkaBootstrap, String topic) {
        return List.of("--events.kafka=" + kafkaBootstrap, "--events.topic=" + topic);
    }

    /** {@code {"amount":..,"currency":"..","card":".."}} */
    public static String body(Payment payment) {
        return "{\"amount\":" + payment.amount() + ",\"currency\":\"" + payment.currency() + "\",\"card\":\"" + payment.card() + "\"}";
    }
}
