package dev.idem.spring.methods;

import dev.idem.Execution;
import dev.idem.spring.IdemMethods;
import dev.idem.spring.Idempotent;
import dev.idem.spring.IdempotentMethod;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Service;

/**
 * A service as a user writes it, whose effects are rows of {@code method_effect} (order id, step,
 * process id), so runs can be counted across processes.
 */
@Service
public class Payments {
    private final JdbcTemplate jdbc;
    /** Opened by a test to let the blocked calls finish. */
    private volatile CountDownLatch gate = new CountDownLatch(0);
    /** Calls of {@link #flaky} still to fail. */
    private final AtomicInteger failuresLeft = new AtomicInteger();
    /** Set in the child JVM: {@link #chargeAndShip} stops for good before shipping, as if frozen until killed. */
    private volatile Path hangBeforeShipping;

    public Payments(JdbcTemplate jdbc) {
        this.jdbc = jdbc;
        jdbc.execute("CREATE TABLE IF NOT EXISTS method_effect (order_id VARCHAR(100) NOT NULL, step VARCHAR(20) NOT NULL, pid BIGINT NOT NULL)");
    }

    public record Order(String id, long amount) {
    }

    public record Receipt(String orderId, long amount, String chargeId, int attempt, boolean resumed, long pid) {
    }

    public record Refund(String id, long amount) {
    }

    /** A node of a linked structure: two of them pointing at each other cannot be encoded as JSON. */
    public static final class Node {
        public String name;
        public Node next;
    }

    /** The list {@link #items} returned last, as the service keeps it. */
    private volatile List<String> lastItems;

    /** Runs once per order id; a repeat with another amount is refused. Blocks while {@link #block()} is in force. */
    @IdempotentMethod(key = "#order.id", fingerprint = "#order.amount", inFlight = Idempotent.InFlight.WAIT, maxWait = "60s")
    public Receipt charge(Order order) throws InterruptedException {
        effect(order.id(), "charge");
        if (!gate.await(60, TimeUnit.SECONDS)) {
            throw new IllegalStateException("the test never opened the gate");
        }
        Execution execution = IdemMethods.currentExecution().orElseThrow();
        return new Receipt(order.id(), order.amount(), UUID.randomUUID().toString(), execution.attempt(), execution.resumed(),
                ProcessHandle.current().pid());
    }

    /** The same key text as {@link #charge}, another method: another scope, so no collision. */
    @IdempotentMethod(key = "#order.id", inFlight = Idempotent.InFlight.REJECT)
    public Receipt refund(Order order) throws InterruptedException {
        effect(order.id(), "refund");
        if (!gate.await(60, TimeUnit.SECONDS)) {
            throw new IllegalStateException("the test never opened the gate");
        }
        return new Receipt(order.id(), -order.amount(), UUID.randomUUID().toString(), 1, false, ProcessHandle.current().pid());
    }

    /** Its result is kept for one second: with {@code idem.tombstones}, a call after that is told the first completed. */
    @IdempotentMethod(key = "#orderId", lease = "500ms", retention = "1s")
    public String shortLived(String orderId) {
        effect(orderId, "short");
        return "done";
    }

    /** An overload of {@link #charge(Order)}: its own default scope, so the same id is another call. */
    @IdempotentMethod(key = "#refund.id")
    public Receipt charge(Refund refund) {
        effect(refund.id(), "charge-refund");
        return new Receipt(refund.id(), -refund.amount(), UUID.randomUUID().toString(), 1, false, ProcessHandle.current().pid());
    }

    /** Runs, then returns a cyclic graph, which cannot be stored. */
    @IdempotentMethod(key = "#orderId")
    public Node cyclic(String orderId) {
        effect(orderId, "cyclic");
        Node a = new Node();
        Node b = new Node();
        a.name = "a";
        b.name = "b";
        a.next = b;
        b.next = a;
        return a;
    }

    /** Runs, then returns {@code size} characters, which may be over {@code idem.max-response-bytes}. */
    @IdempotentMethod(key = "#orderId")
    public String large(String orderId, int size) {
        effect(orderId, "large");
        return "x".repeat(size);
    }

    /** Identified by its attributes too: equal maps in another order are the same request. */
    @IdempotentMethod(key = "#orderId", fingerprint = "#attributes")
    public Receipt tag(String orderId, Map<String, String> attributes) {
        effect(orderId, "tag");
        return new Receipt(orderId, attributes.size(), UUID.randomUUID().toString(), 1, false, ProcessHandle.current().pid());
    }

    /** Returns a list the service keeps and may change after returning it. */
    @IdempotentMethod(key = "#orderId")
    public List<String> items(String orderId) {
        effect(orderId, "items");
        List<String> items = new ArrayList<>(List.of("a"));
        lastItems = items;
        return items;
    }

    public List<String> lastItems() {
        return lastItems;
    }

    /** Fails (with a checked exception) while {@link #failNext} has failures left. */
    @IdempotentMethod(key = "#p0")
    public List<Receipt> flaky(String orderId) throws IOException {
        effect(orderId, "flaky");
        if (failuresLeft.getAndDecrement() > 0) {
            throw new IOException("the downstream is down");
        }
        return List.of(new Receipt(orderId, 1, UUID.randomUUID().toString(), 1, false, ProcessHandle.current().pid()));
    }

    /** Nothing to return: still run once per key. */
    @IdempotentMethod(key = "'note-' + #orderId")
    public void note(String orderId) {
        effect(orderId, "note");
    }

    /**
     * Two phases with a short lease: "charge" is checkpointed, then (in the child JVM) the process
     * freezes before "ship" until it is killed; the retry takes over after the lease and resumes.
     */
    @IdempotentMethod(key = "#orderId", lease = "2s", inFlight = Idempotent.InFlight.WAIT, maxWait = "60s")
    public Receipt chargeAndShip(String orderId) throws Exception {
        Execution execution = IdemMethods.currentExecution().orElseThrow();
        String chargeId = execution.phase("charge", downstreamKey -> {
            effect(orderId, "charge");
            return downstreamKey;
        });
        if (hangBeforeShipping != null) {
            Files.writeString(hangBeforeShipping, "charged");
            Thread.sleep(Long.MAX_VALUE);
        }
        execution.phase("ship", downstreamKey -> {
            effect(orderId, "ship");
            return "shipped";
        });
        return new Receipt(orderId, 0, chargeId, execution.attempt(), execution.resumed(), ProcessHandle.current().pid());
    }

    private void effect(String orderId, String step) {
        jdbc.update("INSERT INTO method_effect (order_id, step, pid) VALUES (?, ?, ?)", orderId, step, ProcessHandle.current().pid());
    }

    /** Rows of {@code step} for {@code orderId}, from every process. */
    public int effects(String orderId, String step) {
        Integer count = jdbc.queryForObject("SELECT count(*) FROM method_effect WHERE order_id = ? AND step = ?", Integer.class, orderId, step);
        return count == null ? 0 : count;
    }

    /** Calls to {@link #charge} and {@link #refund} wait until the returned latch is counted down. */
    public CountDownLatch block() {
        CountDownLatch latch = new CountDownLatch(1);
        gate = latch;
        return latch;
    }

    public void failNext(int times) {
        failuresLeft.set(times);
    }

    void hangBeforeShipping(Path marker) {
        this.hangBeforeShipping = marker;
    }
}
