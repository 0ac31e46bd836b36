package dev.idem.docs.samples.starter;

import dev.idem.spring.Idempotent;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;

/** The transactional endpoint of docs/http.md: claim, the handler's row and the stored response in one transaction. */
@RestController
class OrdersController {
    private final Orders orders;

    OrdersController(Orders orders) {
        this.orders = orders;
    }

    // sample: http-starter-transactional
    @PostMapping("/orders")
    @Idempotent(transactional = true)                  // one transaction: claim + handler's writes + response
    ResponseEntity<Order> create(@RequestBody NewOrder order) {
        Order saved = orders.insert(order);            // JdbcTemplate or a @Transactional service: joins it
        return ResponseEntity.status(201).body(saved);
    }
    // end sample

    record NewOrder(String item) {
    }

    record Order(long id, String item) {
    }
}
