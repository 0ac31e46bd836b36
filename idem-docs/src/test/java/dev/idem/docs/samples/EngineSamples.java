package dev.idem.docs.samples;

import dev.idem.Execution;
import dev.idem.Fingerprint;
import dev.idem.Idem;
import dev.idem.IdempotencyKey;
import dev.idem.OpenExecution;
import dev.idem.Outcome;
import dev.idem.PhaseCodec;
import dev.idem.Scope;
import dev.idem.Start;
import dev.idem.StoredResponse;
import dev.idem.Sweeper;
import dev.idem.inbox.Inbox;
import dev.idem.jdbc.JdbcIdempotencyStore;
import dev.idem.jdbc.TransactionalIdem;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;

/** The samples of README.md, docs/engine.md, docs/stores.md (the JDBC store) and docs/operations.md, as they are printed. */
public final class EngineSamples {
    private EngineSamples() {
    }

    /** What a sample built and what its call answered. */
    public record Ran(Idem idem, Outcome outcome) {
    }

    /** The payments table of {@link #phases}: {@code insert} makes a row, {@code markPaid} sets its status. */
    public interface Payments {
        long insert(long amount) throws Exception;

        void markPaid(long paymentId, String chargeId) throws Exception;
    }

    public static Outcome readmeEngine(DataSource dataSource, String userId, String header, Fingerprint fingerprint,
            CardGateway gateway, long amount) {
        // sample: readme-engine, getting-started-engine
        Idem idem = Idem.builder().store(JdbcIdempotencyStore.builder(dataSource).build()).build();
        Outcome outcome = idem.execute(Scope.of(userId, "POST /payments"), IdempotencyKey.parse(header), fingerprint, run -> {
            String chargeId = run.phase("charge", downstreamKey -> gateway.charge(downstreamKey, amount));
            return StoredResponse.of(201, chargeId.getBytes(StandardCharsets.UTF_8));
        });
        // end sample
        return outcome;
    }

    public static Ran quickstart(DataSource dataSource, String userId, String header, Fingerprint fingerprint) {
        // sample: engine-quickstart
        JdbcIdempotencyStore store = JdbcIdempotencyStore.builder(dataSource).build();  // PostgreSQL, MariaDB or SQLite: detected
        store.migrate();                                                                // or run the plain SQL files yourself
        Idem idem = Idem.builder().store(store).build();                                // 30 s lease, 24 h retention
        Outcome outcome = idem.execute(Scope.of(userId, "POST /payments"), IdempotencyKey.parse(header),
                fingerprint, run -> charge(run));
        // end sample
        return new Ran(idem, outcome);
    }

    private static StoredResponse charge(Execution run) throws Exception {
        String chargeId = run.phase("charge", downstreamKey -> "ch_" + downstreamKey);
        return StoredResponse.of(201, chargeId.getBytes(StandardCharsets.UTF_8));
    }

    public static Outcome phases(Idem idem, Scope scope, IdempotencyKey key, Fingerprint fingerprint, Payments payments,
            CardGateway gateway, long amount) {
        // sample: engine-phases
        Outcome outcome = idem.execute(scope, key, fingerprint, run -> {
            long paymentId = run.phase("create", PhaseCodec.LONG, k -> payments.insert(amount));
            String charge  = run.phase("charge", downstreamKey -> gateway.charge(downstreamKey, amount));
            run.phase("mark-paid", k -> { payments.markPaid(paymentId, charge); return "paid"; });   // a phase returns a value
            return StoredResponse.of(201, Map.of("Content-Type", List.of("application/json")), json(paymentId, charge));
        });
        // end sample
        return outcome;
    }

    private static byte[] json(long paymentId, String chargeId) {
        return ("{\"id\":" + paymentId + ",\"charge\":\"" + chargeId + "\"}").getBytes(StandardCharsets.UTF_8);
    }

    /** The handler a filter runs between claiming and completing (a reactive chain, a resource). */
    public interface Handler {
        StoredResponse run(Execution execution);
    }

    public static Outcome startAndEnd(Idem idem, Scope scope, IdempotencyKey key, Fingerprint fingerprint, Handler handler) {
        // sample: engine-start
        Start start = idem.start(scope, key, fingerprint);           // blocks for the claim: not on an event loop
        if (!(start instanceof Start.Owned owned)) {
            return ((Start.Answered) start).outcome();               // a replay, in progress, or a mismatch
        }
        OpenExecution execution = owned.execution();                 // the lease is held and renewed from now on
        StoredResponse response;
        try {
            response = handler.run(execution);                       // phases work as in execute
        } catch (RuntimeException e) {
            execution.fail(e);                                       // released, or its lease ended after a phase
            throw e;
        }
        return execution.complete(response);                         // stored as execute would store it
        // end sample
    }

    public static Outcome transactional(Idem idem, Scope scope, IdempotencyKey key, Fingerprint fingerprint, long amount, byte[] body) {
        // sample: engine-transactional
        TransactionalIdem tx = TransactionalIdem.of(idem);                 // same store and settings as idem
        Outcome outcome = tx.execute(scope, key, fingerprint, connection -> {
            insertPayment(connection, amount);                              // same Connection, same transaction
            return StoredResponse.of(201, body);
        });
        // end sample
        return outcome;
    }

    /** The row {@link #transactional} writes: table {@code payment (amount)}. */
    public static void insertPayment(Connection connection, long amount) throws SQLException {
        try (PreparedStatement insert = connection.prepareStatement("INSERT INTO payment (amount) VALUES (?)")) {
            insert.setLong(1, amount);
            insert.executeUpdate();
        }
    }

    public static Sweeper sweeper(JdbcIdempotencyStore store) {
        // sample: engine-sweeper
        Sweeper sweeper = Sweeper.builder(store).build().start();   // every minute, batches of 500; close() on shutdown
        // end sample
        return sweeper;
    }

    public static Idem jdbcStore(DataSource dataSource) {
        // sample: stores-jdbc
        JdbcIdempotencyStore store = JdbcIdempotencyStore.builder(dataSource).build();   // dialect detected from the connection
        store.migrate();                                                                // idem_record, under a lock
        Idem idem = Idem.builder().store(store).build();
        // end sample
        return idem;
    }

    public static List<Sweeper> sweepers(JdbcIdempotencyStore store, Inbox inbox) {
        // sample: operations-sweepers
        Sweeper records = Sweeper.builder(store).build().start();
        Sweeper messages = Sweeper.builder(inbox).interval(Duration.ofSeconds(30)).build().start();
        // end sample
        return List.of(records, messages);
    }
}
