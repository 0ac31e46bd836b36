package dev.idem.demo.payments;

import java.time.Duration;
import java.util.Map;
import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.server.ResponseStatusException;

/**
 * The instance's own figures and faults, for the lab's fleet: {@code GET /internal/counters} (the
 * engine's events in this process, {@link ServiceCounters}) and
 * {@code POST /internal/faults/pool-pressure?millis=N} ({@link PoolPressure}), and for the lab's
 * give-up rows {@code GET /internal/payments/states}. Loopback only, as the
 * whole service.
 */
@RestController
public class InternalController {
    private static final long MAX_FAULT_MILLIS = 600_000;

    private final ServiceCounters counters;
    private final PoolPressure poolPressure;
    private final PaymentRepository payments;

    public InternalController(ServiceCounters counters, PoolPressure poolPressure, PaymentRepository payments) {
        this.counters = counters;
        this.poolPressure = poolPressure;
        this.payments = payments;
    }

    @GetMapping(path = "/internal/counters", produces = "application/json")
    public Map<String, Long> counters() {
        return counters.snapshot();
    }

    /** What this service recorded, whatever its clients saw: every payment's status by card (the lab's give-up rows). */
    @GetMapping(path = "/internal/payments/states", produces = "application/json")
    public Map<String, String> paymentStates() {
        return payments.statesByCard();
    }

    @PostMapping(path = "/internal/faults/pool-pressure", produces = "application/json")
    public Map<String, Long> poolPressure(@RequestParam("millis") long millis) {
        if (millis < 1 || millis > MAX_FAULT_MILLIS) {
            throw new ResponseStatusException(HttpStatus.BAD_REQUEST, "millis must be 1-" + MAX_FAULT_MILLIS + ", was " + millis);
        }
        poolPressure.activate(Duration.ofMillis(millis));
        return Map.of("poolPressureMillis", millis);
    }
}
