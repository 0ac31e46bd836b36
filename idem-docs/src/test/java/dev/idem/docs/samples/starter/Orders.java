package dev.idem.docs.samples.starter;

import dev.idem.docs.samples.starter.OrdersController.NewOrder;
import dev.idem.docs.samples.starter.OrdersController.Order;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Repository;

/** Orders in the application's database, written with the JdbcTemplate, so on the transaction the endpoint opened. */
@Repository
public class Orders {
    private final JdbcTemplate jdbc;

    Orders(JdbcTemplate jdbc) {
        this.jdbc = jdbc;
        jdbc.execute("CREATE TABLE IF NOT EXISTS orders (id INTEGER PRIMARY KEY AUTOINCREMENT, item TEXT NOT NULL)");
    }

    Order insert(NewOrder order) {
        jdbc.update("INSERT INTO orders (item) VALUES (?)", order.item());
        long id = jdbc.queryForObject("SELECT last_insert_rowid()", Long.class);
        return new Order(id, order.item());
    }

    public long count() {
        return jdbc.queryForObject("SELECT COUNT(*) FROM orders", Long.class);
    }
}
