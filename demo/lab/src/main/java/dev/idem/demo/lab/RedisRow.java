package dev.idem.demo.lab;

import com.zaxxer.hikari.HikariDataSource;
import dev.idem.Fingerprint;
import dev.idem.Idem;
import dev.idem.IdempotencyKey;
import dev.idem.Outcome;
import dev.idem.Scope;
import dev.idem.StoredResponse;
import dev.idem.redis.PersistenceCheck;
import dev.idem.redis.RedisIdempotencyStore;
import io.lettuce.core.RedisClient;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.Delay;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;
import javax.sql.DataSource;

/**
 * Payments through idem's engine on its Redis store, each charge a row in the lab's database. Every
 * response is lost, the redis-server is SIGKILLed and started again, then every payment is retried
 * with its key. Without the append-only file the restarted server has forgotten the keys and every
 * retry charges again; with {@code appendonly yes} and {@code appendfsync always} every retry is a
 * replay. The first server is also given to the store's default {@code build()}, which refuses it:
 * the row's note quotes why. Counted: charge rows per payment.
 */
final class RedisRow {
    static final PatternRow ROW = new PatternRow("redis-restart", Group.STORE, "responses lost; redis-server SIGKILLed + restarted before the retries",
            List.of(Side.naive("Redis without the append-only file"), Side.idempotent("appendonly yes, appendfsync always")),
            "payments", "payments without exactly one charge", PatternRow.Needs.REDIS_SERVER, RedisRow::run);

    private static final String CHARGES = "lab_redis_charge";
    /**
     * Lettuce logs its reconnection attempts (through java.util.logging, as Netty finds no SLF4J
     * binding worth using); the row's progress line says the server is restarting. Held here, as
     * java.util.logging keeps loggers only weakly.
     */
    private static final Logger LETTUCE_LOG = Logger.getLogger("io.lettuce");
    private static final Scope SCOPE = Scope.of("lab", "POST /payments");

    private RedisRow() {
    }

    static PatternResult run(PatternRow row, RowContext context) throws Exception {
        LETTUCE_LOG.setLevel(Level.SEVERE);
        Optional<Path> binary = PrivateRedis.binary();
        if (binary.isEmpty()) {
            return PatternResult.skipped(row, "needs redis-server, which is not installed (e.g. apt-get install redis-server)");
        }
        long started = System.nanoTime();
        try (HikariDataSource db = context.database(row.id(), "charges", 2)) {
            Sql.recreate(db, CHARGES, "charge_id " + Sql.identity(Sql.dialect(db)) + ", side text NOT NULL, payment_id text NOT NULL");
            StringBuilder refusal = new StringBuilder();
            SideResult naive = side(row.sides().get(0), "no-aof", List.of("--appendonly", "no"), binary.get(), db, context, refusal);
            SideResult idem = side(row.sides().get(1), "aof-always", List.of("--appendonly", "yes", "--appendfsync", "always"),
                    binary.get(), db, context, null);
            return new PatternResult(row, List.of(naive, idem), "idem's default build() on the first server: " + refusal
                    + " (the naive side runs with PersistenceCheck.SKIP)", (System.nanoTime() - started) / 1_000_000, null);
        }
    }

    /**
     * One side on a server of its own.
     *
     * @param refusal receives what the store's default build() said about the server; null: build with the default check
     */
    private static SideResult side(Side side, String name, List<String> persistence, Path binary, DataSource db, RowContext context,
                                   StringBuilder refusal) throws SQLException {
        long started = System.nanoTime();
        int payments = context.items();
        int replays = 0;
        try (PrivateRedis redis = PrivateRedis.start(binary, context.workDir("redis-restart/" + name), persistence,
                context.log("redis-server-" + name + ".log")); Client client = new Client(redis)) {
            if (refusal != null) {
                refusal.append(refusedBy(client.client));
            }
            RedisIdempotencyStore.Builder builder = RedisIdempotencyStore.builder(client.client).keyPrefix("lab:" + context.runTag() + ":");
            if (refusal != null) {
                builder.persistenceCheck(PersistenceCheck.SKIP);
            }
            try (RedisIdempotencyStore store = builder.build()) {
                Idem idem = Idem.builder().store(store).build();
                for (int i = 0; i < payments; i++) {
                    pay(idem, db, name, i);
                }
                context.event("redis-server (" + String.join(" ", persistence) + ") SIGKILLed after " + payments
                        + " payments whose responses were lost; restarting it");
                redis.crashAndRestart();
                for (int i = 0; i < payments; i++) {
                    if (pay(idem, db, name, i) instanceof Outcome.Replayed) {
                        replays++;
                    }
                }
            }
        }
        long millis = (System.nanoTime() - started) / 1_000_000;
        Map<String, Long> charges = Sql.longsBy(db, "SELECT payment_id, count(*) FROM " + CHARGES + " WHERE side = '" + name + "' GROUP BY payment_id");
        long total = charges.values().stream().mapToLong(Long::longValue).sum();
        int wrong = 0;
        for (int i = 0; i < payments; i++) {
            if (charges.getOrDefault(paymentId(i), 0L) != 1) {
                wrong++;
            }
        }
        return new SideResult(side, payments, total + " charges; " + replays + " of " + payments + " retries replayed", wrong, millis);
    }

    /**
     * The service's Redis client. It reconnects every 50 ms while the server is down (Lettuce's default
     * backs off to seconds), so the retries start as soon as the restarted server answers.
     */
    private static final class Client implements AutoCloseable {
        final ClientResources resources = ClientResources.builder().reconnectDelay(Delay.constant(Duration.ofMillis(50))).build();
        final RedisClient client;

        Client(PrivateRedis redis) {
            client = RedisClient.create(resources, redis.uri());
        }

        @Override
        public void close() {
            client.shutdown(0, 2, TimeUnit.SECONDS);
            resources.shutdown(0, 2, TimeUnit.SECONDS);
        }
    }

    /** What the store's default build() says about the server: the first clause of its refusal, or that it accepted it. */
    private static String refusedBy(RedisClient client) {
        try (RedisIdempotencyStore accepted = RedisIdempotencyStore.builder(client).build()) {
            return "accepted it";
        } catch (IllegalStateException e) {
            String message = e.getMessage().replaceFirst("^Redis store: ", "");
            int end = message.indexOf(": without");
            return "refused, \"" + (end > 0 ? message.substring(0, end) : message) + "\"";
        }
    }

    /** One attempt at payment {@code i}: the charge is a row in the database; its response goes nowhere, as if lost. */
    private static Outcome pay(Idem idem, DataSource db, String side, int i) {
        String body = "{\"payment\":\"" + paymentId(i) + "\",\"amount\":" + (100 + i) + "}";
        return idem.execute(SCOPE, IdempotencyKey.of(side + "-" + paymentId(i)), Fingerprint.builder().part("body", body).build(), execution -> {
            try (Connection c = db.getConnection();
                 PreparedStatement ps = c.prepareStatement("INSERT INTO " + CHARGES + " (side, payment_id) VALUES (?, ?)")) {
                ps.setString(1, side);
                ps.setString(2, paymentId(i));
                ps.executeUpdate();
            }
            return StoredResponse.of(201, body.getBytes(StandardCharsets.UTF_8));
        });
    }

    private static String paymentId(int i) {
        return String.format("payment-%03d", i + 1);
    }
}
