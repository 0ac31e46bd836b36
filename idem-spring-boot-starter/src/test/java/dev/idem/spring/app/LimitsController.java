package dev.idem.spring.app;

import dev.idem.Execution;
import dev.idem.servlet.IdempotencyFilter;
import dev.idem.spring.Idempotent;
import jakarta.servlet.http.HttpServletRequest;
import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.server.ResponseStatusException;

/**
 * Endpoints whose first answer for an item is one the storage policy may decline — a 429, a 202 the
 * handler opts out of — and one that takes the database down in the middle of a phase (only with
 * {@code orders.outage-switch=true}, see {@link OutageConfiguration}).
 */
@RestController
public class LimitsController {
    private final Effects effects;
    private final OrderBook book;
    private final ObjectProvider<Outage> outage;

    public LimitsController(Effects effects, OrderBook book, ObjectProvider<Outage> outage) {
        this.effects = effects;
        this.book = book;
        this.outage = outage;
    }

    /** 429 on the first run for an item, 201 after; under the default storage policy the 429 is not stored. */
    @PostMapping("/limits/rate-limited")
    @Idempotent
    public ResponseEntity<Map<String, Object>> rateLimited(@RequestBody Map<String, Object> body) {
        return limitedOnce(item(body));
    }

    /** The same, on an endpoint that stores every status but a 5xx: the 429 is replayed. */
    @PostMapping("/limits/rate-limited-stored")
    @Idempotent(notStored = "5xx")
    public ResponseEntity<Map<String, Object>> rateLimitedStored(@RequestBody Map<String, Object> body) {
        return limitedOnce(item(body));
    }

    /** 202 with {@code Idempotent-Store: no} on the first run for an item (not stored), 201 after. */
    @PostMapping("/limits/accepted")
    @Idempotent
    public ResponseEntity<Map<String, Object>> accepted(@RequestBody Map<String, Object> body) {
        String item = item(body);
        int run = effects.run(item);
        if (effects.count(item) == 1) {
            return ResponseEntity.status(HttpStatus.ACCEPTED).header(IdempotencyFilter.STORE_HEADER, "no")
                    .header("X-Run", Integer.toString(run)).body(answer(item, run));
        }
        return ResponseEntity.status(HttpStatus.CREATED).header("X-Run", Integer.toString(run)).body(answer(item, run));
    }

    /** Transactional: writes its row, then declines storage on the first run (rolled back); 201 after. */
    @PostMapping("/limits/tx-accepted")
    @Idempotent(transactional = true)
    public ResponseEntity<Map<String, Object>> transactionalAccepted(@RequestBody Map<String, Object> body) {
        String item = item(body);
        int run = effects.run(item);
        book.insert(item, run);
        boolean first = effects.count(item) == 1;
        ResponseEntity.BodyBuilder answer = ResponseEntity.status(first ? HttpStatus.ACCEPTED : HttpStatus.CREATED);
        if (first) {
            answer.header(IdempotencyFilter.STORE_HEADER, "no");
        }
        return answer.header("X-Run", Integer.toString(run)).body(answer(item, run));
    }

    /** A phase whose action takes the database down: its checkpoint fails inside Spring MVC. */
    @PostMapping("/outage/charge")
    @Idempotent
    public Map<String, Object> chargeDuringOutage(@RequestBody Map<String, Object> body, HttpServletRequest request) throws Exception {
        String item = item(body);
        Execution execution = IdempotencyFilter.execution(request).orElseThrow(() -> new IllegalStateException("not covered"));
        String charge = execution.phase("charge", downstreamKey -> {
            int run = effects.run(item);
            outage.getObject().begin(); // the database goes away right after the foreign call
            return "ch_" + run;
        });
        return Map.of("item", item, "charge", charge);
    }

    @PostMapping("/outage/blip-charge")
    @Idempotent
    public Map<String, Object> chargeDuringBlip(@RequestBody Map<String, Object> body, HttpServletRequest request) throws Exception {
        String item = item(body);
        Execution execution = IdempotencyFilter.execution(request).orElseThrow(() -> new IllegalStateException("not covered"));
        String charge = execution.phase("charge", downstreamKey -> {
            int run = effects.run(item);
            if (run == 1) {
                outage.getObject().blip(1); // the checkpoint's connection is refused; the database is back right after
            }
            return "ch_" + run;
        });
        return Map.of("item", item, "charge", charge);
    }

    private ResponseEntity<Map<String, Object>> limitedOnce(String item) {
        int run = effects.run(item);
        if (effects.count(item) == 1) {
            return ResponseEntity.status(HttpStatus.TOO_MANY_REQUESTS).header("Retry-After", "1")
                    .header("X-Run", Integer.toString(run)).body(answer(item, run));
        }
        return ResponseEntity.status(HttpStatus.CREATED).header("X-Run", Integer.toString(run)).body(answer(item, run));
    }

    private static Map<String, Object> answer(String item, int run) {
        Map<String, Object> answer = new LinkedHashMap<>();
        answer.put("item", item);
        answer.put("run", run);
        return answer;
    }

    private static String item(Map<String, Object> body) {
        Object item = body.get("item");
        if (!(item instanceof String text) || text.isEmpty()) {
            throw new ResponseStatusException(HttpStatus.BAD_REQUEST, "item is required");
        }
        return text;
    }
}
