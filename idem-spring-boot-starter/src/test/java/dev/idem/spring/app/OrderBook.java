package dev.idem.spring.app;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Propagation;
import org.springframework.transaction.annotation.Transactional;

/**
 * The transactional endpoints' effect: one row per order in {@code tx_order}, written with
 * {@link JdbcTemplate} by a {@code @Transactional(MANDATORY)} method — it refuses to run outside a
 * transaction, so a row written here proves the handler ran inside the one the filter opened.
 */
@Service
public class OrderBook {
    private final JdbcTemplate jdbc;

    public OrderBook(JdbcTemplate jdbc) {
        this.jdbc = jdbc;
        jdbc.execute("CREATE TABLE IF NOT EXISTS tx_order (item VARCHAR(300) NOT NULL, run INTEGER NOT NULL)");
    }

    @Transactional(propagation = Propagation.MANDATORY)
    public void insert(String item, int run) {
        jdbc.update("INSERT INTO tx_order (item, run) VALUES (?, ?)", item, run);
    }

    /** Rows of {@code item}: committed ones, or inside a transaction also its own. */
    public int count(String item) {
        Integer count = jdbc.queryForObject("SELECT count(*) FROM tx_order WHERE item = ?", Integer.class, item);
        return count == null ? 0 : count;
    }
}
