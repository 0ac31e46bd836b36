package dev.idem.spring.app;

import dev.idem.Execution;
import dev.idem.PhaseCodec;
import dev.idem.servlet.IdempotencyFilter;
import dev.idem.spring.Idempotent;
import jakarta.servlet.http.HttpServletRequest;
import java.net.URI;
import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.server.ResponseStatusException;

/**
 * The endpoints the tests call. Each run records an effect named after the request's {@code item}, so
 * a test counts executions of its own requests only.
 */
@RestController
public class OrdersController {
    private final Effects effects;
    private final Gate gate;

    public OrdersController(Effects effects, Gate gate) {
        this.effects = effects;
        this.gate = gate;
    }

    /** The plain idempotent endpoint: 201, a JSON body, a Location and a cookie. */
    @PostMapping("/orders")
    @Idempotent
    public ResponseEntity<Map<String, Object>> create(@RequestBody Map<String, Object> body) {
        return created("order", item(body));
    }

    /** A route with a path variable: its scope's route is the pattern {@code /orders/{id}/pay}. */
    @PostMapping("/orders/{id}/pay")
    @Idempotent
    public ResponseEntity<Map<String, Object>> pay(@PathVariable("id") long id, @RequestBody Map<String, Object> body) {
        return created("payment of order " + id, item(body));
    }

    /** An annotated PUT: covered although PUT is not in idem.methods. */
    @PutMapping("/orders/{id}")
    @Idempotent
    public ResponseEntity<Map<String, Object>> replace(@PathVariable("id") long id, @RequestBody Map<String, Object> body) {
        return created("replacement of order " + id, item(body));
    }

    /** An annotated DELETE: covered although DELETE is not in idem.methods. */
    @DeleteMapping("/orders/{id}/items/{item}")
    @Idempotent
    public Map<String, Object> removeItem(@PathVariable("id") long id, @PathVariable("item") String item) {
        return Map.of("removed", item, "run", effects.run(item));
    }

    /** Reads pass through: not a covered method. */
    @GetMapping("/orders/{id}")
    public Map<String, Object> read(@PathVariable("id") long id, HttpServletRequest request) {
        int run = effects.run("GET /orders/" + id + " " + request.getQueryString());
        return Map.of("id", id, "run", run);
    }

    /** Not annotated: with idem.default-policy=annotated, passes through with or without a key. */
    @PostMapping("/notes")
    public Map<String, Object> note(@RequestBody Map<String, Object> body) {
        String item = item(body);
        return Map.of("item", item, "run", effects.run(item));
    }

    /** Key optional: covered when a key is sent. */
    @PostMapping("/optional")
    @Idempotent(required = false)
    public ResponseEntity<Map<String, Object>> optional(@RequestBody Map<String, Object> body) {
        return created("optional", item(body));
    }

    /** A concurrent duplicate waits for this one's result. */
    @PostMapping("/wait")
    @Idempotent(inFlight = Idempotent.InFlight.WAIT, maxWait = "${orders.max-wait:60s}")
    public ResponseEntity<Map<String, Object>> waiting(@RequestBody Map<String, Object> body) throws InterruptedException {
        String item = item(body);
        gate.pass();
        return created("waited", item);
    }

    /** A concurrent duplicate is answered 409 at once. */
    @PostMapping("/reject")
    @Idempotent(inFlight = Idempotent.InFlight.REJECT)
    public ResponseEntity<Map<String, Object>> rejecting(@RequestBody Map<String, Object> body) throws InterruptedException {
        String item = item(body);
        gate.pass();
        return created("rejected duplicates", item);
    }

    /** Throws on its first run for an item, succeeds after. */
    @PostMapping("/flaky")
    @Idempotent
    public ResponseEntity<Map<String, Object>> flaky(@RequestBody Map<String, Object> body) {
        String item = item(body);
        if (effects.count(item) == 0) {
            effects.run(item);
            throw new IllegalStateException("the database went away");
        }
        return created("flaky", item);
    }

    /** Answers 503 on its first run for an item, 201 after. */
    @PostMapping("/unavailable")
    @Idempotent
    public ResponseEntity<Map<String, Object>> unavailable(@RequestBody Map<String, Object> body) {
        String item = item(body);
        if (effects.count(item) == 0) {
            effects.run(item);
            throw new ResponseStatusException(HttpStatus.SERVICE_UNAVAILABLE, "try again");
        }
        return created("unavailable", item);
    }

    /** A longer retention than the global one. */
    @PostMapping("/archive")
    @Idempotent(retention = "7d", lease = "45s")
    public ResponseEntity<Map<String, Object>> archive(@RequestBody Map<String, Object> body) {
        return created("archive", item(body));
    }

    /**
     * Two phases: a local reservation, then a foreign charge that fails on its first try. The retry
     * resumes after the reservation and repeats the charge with the same downstream key.
     */
    @PostMapping("/phased")
    @Idempotent
    public Map<String, Object> phased(@RequestBody Map<String, Object> body, HttpServletRequest request) throws Exception {
        String item = item(body);
        Execution execution = IdempotencyFilter.execution(request).orElseThrow(() -> new IllegalStateException("not covered"));
        long reservation = execution.phase("reserve", PhaseCodec.LONG, downstreamKey -> (long) effects.run(item + "/reserve"));
        String charge = execution.phase("charge", downstreamKey -> {
            effects.note(item + "/charge", downstreamKey);
            int run = effects.run(item + "/charge");
            if (effects.count(item + "/charge") == 1) {
                throw new IllegalStateException("the card gateway timed out");
            }
            return "ch_" + run;
        });
        Map<String, Object> answer = new LinkedHashMap<>();
        answer.put("item", item);
        answer.put("reservation", reservation);
        answer.put("charge", charge);
        answer.put("attempt", execution.attempt());
        answer.put("resumed", execution.resumed());
        return answer;
    }

    private ResponseEntity<Map<String, Object>> created(String what, String item) {
        int run = effects.run(item);
        Map<String, Object> answer = new LinkedHashMap<>();
        answer.put("what", what);
        answer.put("item", item);
        answer.put("run", run);
        answer.put("pid", ProcessHandle.current().pid());
        return ResponseEntity.created(URI.create("/orders/" + run))
                .header(HttpHeaders.SET_COOKIE, "session=s" + run + "; Path=/; HttpOnly")
                .header("X-Run", Integer.toString(run))
                .body(answer);
    }

    private static String item(Map<String, Object> body) {
        Object item = body.get("item");
        if (!(item instanceof String text) || text.isEmpty()) {
            throw new ResponseStatusException(HttpStatus.BAD_REQUEST, "item is required");
        }
        return text;
    }
}
