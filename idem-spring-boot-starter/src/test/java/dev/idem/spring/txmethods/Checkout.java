package dev.idem.spring.txmethods;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/** An outer transaction that calls an idempotent method and then writes (and may fail) itself. */
@Service
public class Checkout {
    private final JdbcTemplate jdbc;
    private final Orders orders;

    public Checkout(JdbcTemplate jdbc, Orders orders) {
        this.jdbc = jdbc;
        this.orders = orders;
        jdbc.execute("CREATE TABLE IF NOT EXISTS tx_checkout (order_id VARCHAR(100) NOT NULL)");
    }

    @Transactional
    public String checkout(String orderId, boolean failAfterwards) {
        String placed = orders.place(orderId);
        jdbc.update("INSERT INTO tx_checkout (order_id) VALUES (?)", orderId);
        if (failAfterwards) {
            throw new IllegalStateException("checkout failed after placing");
        }
        return placed;
    }
}
