package dev.idem.spring.app;

import dev.idem.servlet.IdempotencyFilter;
import dev.idem.spring.Idempotent;
import jakarta.servlet.http.HttpServletRequest;
import java.net.URI;
import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.server.ResponseStatusException;

/**
 * {@code @Idempotent(transactional = true)} endpoints: each writes its order row through
 * {@link OrderBook} (JdbcTemplate, joining the filter's transaction) and answers what it saw inside.
 */
@RestController
public class TransactionalOrdersController {
    private final OrderBook book;
    private final Effects effects;
    private final Gate gate;

    public TransactionalOrdersController(OrderBook book, Effects effects, Gate gate) {
        this.book = book;
        this.effects = effects;
        this.gate = gate;
    }

    /** One row, then 201. Waits at the gate after writing it, when a test armed it. */
    @PostMapping("/tx/orders")
    @Idempotent(transactional = true)
    public ResponseEntity<Map<String, Object>> create(@RequestBody Map<String, Object> body, HttpServletRequest request)
            throws InterruptedException {
        String item = item(body);
        int run = effects.run(item);
        book.insert(item, run);
        gate.pass();
        return created(item, run, request);
    }

    /** Writes its row, then throws on the first run for an item; succeeds after. */
    @PostMapping("/tx/orders/failing")
    @Idempotent(transactional = true)
    public ResponseEntity<Map<String, Object>> failing(@RequestBody Map<String, Object> body, HttpServletRequest request) {
        String item = item(body);
        int run = effects.run(item);
        book.insert(item, run);
        if (effects.count(item) == 1) {
            throw new IllegalStateException("the ledger went away after the insert");
        }
        return created(item, run, request);
    }

    /** Writes its row, then answers 503 on the first run for an item (not stored: rolled back); 201 after. */
    @PostMapping("/tx/orders/unavailable")
    @Idempotent(transactional = true)
    public ResponseEntity<Map<String, Object>> unavailable(@RequestBody Map<String, Object> body, HttpServletRequest request) {
        String item = item(body);
        int run = effects.run(item);
        book.insert(item, run);
        if (effects.count(item) == 1) {
            return ResponseEntity.status(HttpStatus.SERVICE_UNAVAILABLE).body(Map.of("error", "try again"));
        }
        return created(item, run, request);
    }

    /**
     * Writes its row; with {@code X-Stuck: true} (not part of the fingerprint) it then hangs, so a
     * test can kill the process mid-handler with the transaction open.
     */
    @PostMapping("/tx/orders/stuck")
    @Idempotent(transactional = true)
    public ResponseEntity<Map<String, Object>> stuck(@RequestBody Map<String, Object> body, HttpServletRequest request,
                                                     @RequestHeader(name = "X-Stuck", defaultValue = "false") boolean hang)
            throws InterruptedException {
        String item = item(body);
        int run = effects.run(item);
        book.insert(item, run);
        if (hang) {
            effects.run(item + "/inserted"); // tells the test the row is written and the transaction open
            Thread.sleep(300_000);
        }
        return created(item, run, request);
    }

    private ResponseEntity<Map<String, Object>> created(String item, int run, HttpServletRequest request) {
        Map<String, Object> answer = new LinkedHashMap<>();
        answer.put("item", item);
        answer.put("run", run);
        answer.put("rowsSeenInside", book.count(item));
        answer.put("inTransaction", TransactionSynchronizationManager.isActualTransactionActive());
        answer.put("execution", IdempotencyFilter.execution(request).isPresent());
        answer.put("pid", ProcessHandle.current().pid());
        return ResponseEntity.created(URI.create("/tx/orders/" + run)).body(answer);
    }

    private static String item(Map<String, Object> body) {
        Object item = body.get("item");
        if (!(item instanceof String text) || text.isEmpty()) {
            throw new ResponseStatusException(HttpStatus.BAD_REQUEST, "item is required");
        }
        return text;
    }
}
