package dev.idem.spring.completion;

import dev.idem.Execution;
import dev.idem.servlet.IdempotencyFilter;
import dev.idem.spring.Idempotent;
import jakarta.servlet.http.HttpServletRequest;
import java.util.Map;
import org.springframework.http.ResponseEntity;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

@RestController
public class PaymentsController {
    /** Not kept in the stored request: the completer's re-run does not die. */
    public static final String CRASH_HEADER = "X-Test-Crash";

    private final JdbcTemplate jdbc;
    private final CompletionApplication.Sightings sightings;

    PaymentsController(JdbcTemplate jdbc, CompletionApplication.Sightings sightings) {
        this.jdbc = jdbc;
        this.sightings = sightings;
        jdbc.execute("CREATE TABLE IF NOT EXISTS route_completer_charges (downstream_key VARCHAR(200) PRIMARY KEY, ref VARCHAR(100) NOT NULL,"
                + " amount INT NOT NULL)");
    }

    @PostMapping("/completable-payments")
    @Idempotent(completable = true)
    ResponseEntity<Map<String, Object>> pay(@RequestBody Map<String, Object> body, @RequestParam("note") String note,
                                            @RequestHeader(value = "Accept", required = false) String accept,
                                            @RequestHeader(value = CRASH_HEADER, required = false) String crash,
                                            HttpServletRequest request) throws Exception {
        return charge(body, note, accept, crash, request);
    }

    @PostMapping("/plain-payments")
    @Idempotent
    ResponseEntity<Map<String, Object>> payPlainly(@RequestBody Map<String, Object> body, @RequestParam("note") String note,
                                                   @RequestHeader(value = "Accept", required = false) String accept,
                                                   @RequestHeader(value = CRASH_HEADER, required = false) String crash,
                                                   HttpServletRequest request) throws Exception {
        return charge(body, note, accept, crash, request);
    }

    private ResponseEntity<Map<String, Object>> charge(Map<String, Object> body, String note, String accept, String crash,
                                                       HttpServletRequest request) throws Exception {
        String ref = (String) body.get("ref");
        int amount = ((Number) body.get("amount")).intValue();
        sightings.add(request.getMethod() + " " + request.getRequestURI() + "?" + request.getQueryString() + " note=" + note
                + " accept=" + accept + " type=" + request.getContentType() + " body=" + body);
        Execution run = IdempotencyFilter.execution(request).orElseThrow();
        String charge = run.phase("charge", key -> {
            jdbc.update("INSERT INTO route_completer_charges (downstream_key, ref, amount) VALUES (?, ?, ?)", key, ref, amount);
            return "ch_" + key.substring(0, 12);
        });
        if (crash != null) {
            throw new IllegalStateException("the instance dies after the charge, before it answers");
        }
        return ResponseEntity.status(201).header("Location", "/completable-payments/" + charge)
                .body(Map.of("charge", charge, "ref", ref, "amount", amount));
    }
}
