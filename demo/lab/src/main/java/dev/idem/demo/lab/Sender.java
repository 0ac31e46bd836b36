package dev.idem.demo.lab;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Random;
import java.util.UUID;

/**
 * One client sending one logical payment the way its {@link ClientStrategy} says: once, or again
 * after every failure until it gets an answer it accepts, gives up on a client error, or runs out of
 * attempts or time. Its state survives between {@link #run} calls, so the lab can stop every sender
 * after its first attempt, restart the service, and let them go on.
 *
 * <p>Retries wait with full jitter, from up to 50 ms doubling to at most 1 s. {@code Retry-After}
 * is not read: a 409 is simply retried on that schedule, which polls no slower than the one-second
 * hint a service gives.
 */
final class Sender {
    /**
     * Enough that the 60 s deadline, not the count, ends a retrying client's patience: a service
     * SIGKILLed twice and restarting in ~5 s each time refuses connections in under a millisecond,
     * and with full jitter 25 attempts could be spent in less than two restarts.
     */
    static final int MAX_ATTEMPTS = 60;
    static final Duration DEADLINE = Duration.ofSeconds(60);
    static final Duration READ_TIMEOUT = Duration.ofSeconds(20);
    private static final long BACKOFF_BASE_MILLIS = 50;
    private static final long BACKOFF_CAP_MILLIS = 1_000;

    private final PaymentRecord record;
    private final int index;
    private final ClientStrategy strategy;
    private final String paymentKey;
    private final int port;
    private final InFlight inFlight;
    private final long scenarioStartNanos;
    private final Random jitter;
    private int attempts;
    private long firstAttemptNanos;
    private long nextDelayMillis;
    private boolean done;

    /**
     * @param paymentKey the payment's one key (shared by its concurrent senders), used by the idempotent strategy
     * @param port       where to send: the fault proxy
     */
    Sender(PaymentRecord record, int index, ClientStrategy strategy, String paymentKey, int port, InFlight inFlight,
           long scenarioStartNanos, long seed) {
        this.record = record;
        this.index = index;
        this.strategy = strategy;
        this.paymentKey = paymentKey;
        this.port = port;
        this.inFlight = inFlight;
        this.scenarioStartNanos = scenarioStartNanos;
        this.jitter = new Random(seed);
    }

    /** Sends up to {@code budget} more attempts; true once the sender is finished (answered or gave up). */
    boolean run(int budget) {
        for (int used = 0; !done && used < budget; used++) {
            if (attempts > 0) {
                ChildProcess.sleep(nextDelayMillis);
            }
            decide(send());
        }
        return done;
    }

    boolean done() {
        return done;
    }

    /** The payment this sender sends, with every attempt its senders made. */
    PaymentRecord record() {
        return record;
    }

    /**
     * One more attempt after the sender finished, with the same key and body, as a client retrying much
     * later would (a confirmation it never saw, a batch job run again); whatever the answer, it stays finished.
     */
    void retryLate() {
        send();
        done = true;
    }

    private Attempt send() {
        attempts++;
        String key = switch (strategy.keyUse()) {
            case NONE -> null;
            case NEW_PER_ATTEMPT -> UUID.randomUUID().toString();
            case ONE_PER_PAYMENT -> paymentKey;
        };
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put("Content-Type", "application/json");
        if (key != null) {
            headers.put(PaymentsServiceContract.KEY_HEADER, key);
        }
        long startNanos = System.nanoTime();
        if (firstAttemptNanos == 0) {
            firstAttemptNanos = startNanos;
        }
        long id = inFlight.begin();
        LabHttp.Result result;
        try {
            result = LabHttp.exchange(port, "POST", PaymentsServiceContract.PAYMENTS_PATH, headers,
                    PaymentsServiceContract.body(record.payment()), READ_TIMEOUT);
        } finally {
            inFlight.end(id);
        }
        LabHttp.Response response = result.response();
        int status = response == null ? 0 : response.status();
        boolean replayed = response != null && "true".equalsIgnoreCase(response.header(PaymentsServiceContract.REPLAYED_HEADER));
        String body = status >= 200 && status < 300 || status == 410 ? response.body() : null;
        Attempt attempt = new Attempt(index, attempts, key, (startNanos - scenarioStartNanos) / 1_000_000, result.micros(),
                result.sent(), status, result.failure(), replayed, body);
        record.add(attempt);
        return attempt;
    }

    private void decide(Attempt attempt) {
        int status = attempt.status();
        if (attempt.succeeded() || !strategy.retries()) {
            done = true;
            return;
        }
        boolean clientError = status >= 400 && status < 500 && status != 409 && status != 429;
        boolean outOfTime = System.nanoTime() - firstAttemptNanos > DEADLINE.toNanos();
        if (clientError || attempts >= MAX_ATTEMPTS || outOfTime) {
            done = true;
            return;
        }
        long backoff = Math.min(BACKOFF_CAP_MILLIS, BACKOFF_BASE_MILLIS << Math.min(attempts - 1, 10));
        // Full jitter: concurrent senders do not retry in lockstep.
        nextDelayMillis = 1 + (long) (jitter.nextDouble() * backoff);
    }
}
