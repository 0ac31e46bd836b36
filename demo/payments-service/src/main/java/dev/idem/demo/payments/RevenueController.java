package dev.idem.demo.payments;

import dev.idem.upserts.WindowedTotals.Recomputation;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.List;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code POST /revenue/recompute?from=…&to=…} recomputes the revenue per minute of a range from the
 * payment table; {@code GET /revenue?from=…&to=…} reads it. Both take ISO-8601 instants
 * ({@code 2026-12-01T10:00:00Z}); a recomputation's range starts and ends on whole minutes. Not
 * {@code @Idempotent}: a recomputation is idempotent by itself (same payments, same totals).
 */
@RestController
public class RevenueController {
    /** The longest range one request recomputes: its paid payments are held in memory meanwhile. */
    static final Duration MAX_RANGE = Duration.ofDays(7);

    private final Revenue revenue;

    public RevenueController(Revenue revenue) {
        this.revenue = revenue;
    }

    /** What changed: a re-run over the same payments reports every row unchanged. */
    public record RecomputeAnswer(String from, String to, long windows, long payments, long inserted, long updated, long deleted,
                                  long unchanged) {
    }

    /** One minute's revenue in one currency. */
    public record MinuteTotal(String minute, String currency, long payments, long amount) {
    }

    @PostMapping("/revenue/recompute")
    public RecomputeAnswer recompute(@RequestParam(name = "from", required = false) String from,
                                     @RequestParam(name = "to", required = false) String to) {
        Instant start = instant("from", from);
        Instant end = instant("to", to);
        checkRange(start, end);
        Recomputation run;
        try {
            run = revenue.recompute(start, end);
        } catch (IllegalArgumentException e) {
            // Only the range can be wrong here (the payments are the service's own rows): its message names the boundary.
            throw PaymentProblem.invalidRange(e.getMessage());
        }
        return new RecomputeAnswer(run.from().toString(), run.to().toString(), run.windows(), run.events(), run.inserted(),
                run.updated(), run.deleted(), run.unchanged());
    }

    @GetMapping("/revenue")
    public List<MinuteTotal> totals(@RequestParam(name = "from", required = false) String from,
                                    @RequestParam(name = "to", required = false) String to) {
        Instant start = instant("from", from);
        Instant end = instant("to", to);
        checkRange(start, end);
        return revenue.totals(start, end).stream()
                .map(t -> new MinuteTotal(t.windowStart().toString(), t.group(), t.count(), t.sum())).toList();
    }

    private static Instant instant(String name, String value) {
        if (value == null || value.isEmpty()) {
            throw PaymentProblem.invalidRange(name + " is missing; give an ISO-8601 instant such as 2026-12-01T10:00:00Z");
        }
        try {
            return Instant.parse(value);
        } catch (DateTimeParseException e) {
            throw PaymentProblem.invalidRange(name + " is not an ISO-8601 instant such as 2026-12-01T10:00:00Z");
        }
    }

    private static void checkRange(Instant from, Instant to) {
        if (!from.isBefore(to)) {
            throw PaymentProblem.invalidRange("from must be before to");
        }
        if (Duration.between(from, to).compareTo(MAX_RANGE) > 0) {
            throw PaymentProblem.invalidRange("the range is longer than " + MAX_RANGE.toDays() + " days; split it");
        }
    }
}
