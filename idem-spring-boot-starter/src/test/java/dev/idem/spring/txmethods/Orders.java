package dev.idem.spring.txmethods;

import dev.idem.spring.IdempotentMethod;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/**
 * Transactional idempotent methods whose effects are rows of {@code tx_order}; runs are counted in
 * memory, so a run whose transaction rolled back still counts.
 */
@Service
public class Orders {
    private final JdbcTemplate jdbc;
    private final Inventory inventory;
    private final Map<String, AtomicInteger> runs = new ConcurrentHashMap<>();
    /** While true, {@link #placeSwallowingInnerFailure} catches a failing inner transactional call. */
    private volatile boolean innerFails = true;

    public Orders(JdbcTemplate jdbc, Inventory inventory) {
        this.jdbc = jdbc;
        this.inventory = inventory;
        jdbc.execute("CREATE TABLE IF NOT EXISTS tx_order (order_id VARCHAR(100) NOT NULL, ref VARCHAR(100) NOT NULL)");
    }

    /** Inserts the order, then swallows the failure of an inner {@code @Transactional} call, which marked the transaction rollback-only. */
    @IdempotentMethod(key = "#orderId")
    @Transactional
    public String placeSwallowingInnerFailure(String orderId) {
        run(orderId);
        jdbc.update("INSERT INTO tx_order (order_id, ref) VALUES (?, ?)", orderId, orderId);
        try {
            inventory.reserve(innerFails);
        } catch (IllegalStateException e) {
            // The caller's mistake under test: the inner call's failure is swallowed, the transaction is rollback-only.
        }
        return "placed " + orderId;
    }

    /** Inserts two rows with one {@code ref} into {@code tx_deferred}, whose unique constraint is checked at COMMIT. */
    @IdempotentMethod(key = "#orderId")
    @Transactional
    public String placeViolatingADeferredConstraint(String orderId) {
        run(orderId);
        jdbc.update("INSERT INTO tx_deferred (ref) VALUES (?)", orderId);
        jdbc.update("INSERT INTO tx_deferred (ref) VALUES (?)", orderId);
        return "placed " + orderId;
    }

    /** An ordinary transactional method, called by {@link Checkout} inside its transaction. */
    @IdempotentMethod(key = "#orderId")
    @Transactional
    public String place(String orderId) {
        run(orderId);
        jdbc.update("INSERT INTO tx_order (order_id, ref) VALUES (?, ?)", orderId, orderId);
        return "placed " + orderId;
    }

    public void innerSucceeds() {
        innerFails = false;
    }

    private void run(String orderId) {
        runs.computeIfAbsent(orderId, k -> new AtomicInteger()).incrementAndGet();
    }

    public int runs(String orderId) {
        AtomicInteger count = runs.get(orderId);
        return count == null ? 0 : count.get();
    }

    public int rows(String table, String column, String value) {
        Integer count = jdbc.queryForObject("SELECT count(*) FROM " + table + " WHERE " + column + " = ?", Integer.class, value);
        return count == null ? 0 : count;
    }
}
