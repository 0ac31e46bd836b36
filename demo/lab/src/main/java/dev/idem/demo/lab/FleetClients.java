package dev.idem.demo.lab;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The fleet's clients: payments started at a steady rate, one {@code Idempotency-Key} each, sent
 * through the balancer (so each retry may reach any instance). While a request hangs past
 * {@link #HEDGE_AFTER_MILLIS} a hedged request with the same key goes out beside it; the first 2xx
 * wins. After a failure the client retries with full jitter until {@link #DEADLINE_MILLIS}, then
 * gives up. A payment counts as settled once all of its requests have ended.
 */
final class FleetClients {
    static final long HEDGE_AFTER_MILLIS = 1_500;
    static final long DEADLINE_MILLIS = 45_000;
    static final java.time.Duration READ_TIMEOUT = java.time.Duration.ofSeconds(12);
    private static final List<String> CURRENCIES = List.of("EUR", "USD", "GBP", "RON", "CHF");
    private static final long BACKOFF_CAP_MILLIS = 1_000;

    private final int port;
    private final long startNanos;
    private final ExecutorService requests = Executors.newCachedThreadPool(daemon("fleet-request"));

    FleetClients(int port, long startNanos) {
        this.port = port;
        this.startNanos = startNanos;
    }

    /** The payments of a fleet: {@code count}, their cards starting with {@code cardPrefix}. */
    static List<PaymentRecord> payments(int count, String cardPrefix, Random random) {
        List<PaymentRecord> records = new ArrayList<>();
        for (int i = 1; i <= count; i++) {
            String id = String.format("fleet-%05d", i);
            records.add(new PaymentRecord(new Payment(id, 100 + random.nextInt(99_900), CURRENCIES.get(random.nextInt(CURRENCIES.size())),
                    cardPrefix + i)));
        }
        return records;
    }

    /**
     * Starts {@code perSecond} payments a second, each on a thread of its own, and returns once every
     * payment has settled. {@code settled} is called after each one.
     */
    void run(List<PaymentRecord> payments, int perSecond, long seed, Runnable settled) throws InterruptedException {
        ExecutorService clients = Executors.newCachedThreadPool(daemon("fleet-client"));
        Random seeds = new Random(seed);
        List<Future<?>> running = new ArrayList<>();
        long intervalNanos = 1_000_000_000L / perSecond;
        try {
            for (int i = 0; i < payments.size(); i++) {
                long due = startNanos + i * intervalNanos;
                long wait = due - System.nanoTime();
                if (wait > 0) {
                    TimeUnit.NANOSECONDS.sleep(wait);
                }
                PaymentRecord record = payments.get(i);
                long jitterSeed = seeds.nextLong();
                running.add(clients.submit(() -> {
                    pay(record, new Random(jitterSeed));
                    settled.run();
                    return null;
                }));
            }
            for (Future<?> future : running) {
                try {
                    future.get();
                } catch (java.util.concurrent.ExecutionException e) {
                    throw new IllegalStateException("a fleet client failed", e.getCause());
                }
            }
        } finally {
            clients.shutdownNow();
            requests.shutdownNow();
        }
    }

    /** One payment: rounds of a request and, while it hangs, a hedge; until a 2xx, a client error or the deadline. */
    private void pay(PaymentRecord record, Random jitter) throws InterruptedException {
        String key = UUID.randomUUID().toString();
        long first = System.nanoTime();
        AtomicInteger numbers = new AtomicInteger();
        long backoff = 50;
        while (true) {
            List<Future<Attempt>> round = new ArrayList<>();
            round.add(requests.submit(() -> send(record, key, 0, numbers.incrementAndGet())));
            long roundStart = System.nanoTime();
            Attempt decisive = null;
            while (decisive == null) {
                decisive = firstSuccess(round);
                if (decisive == null && round.stream().allMatch(Future::isDone)) {
                    decisive = last(round);
                    break;
                }
                if (round.size() == 1 && System.nanoTime() - roundStart > HEDGE_AFTER_MILLIS * 1_000_000) {
                    round.add(requests.submit(() -> send(record, key, 1, numbers.incrementAndGet())));
                }
                Thread.sleep(10);
            }
            awaitAll(round);
            int status = decisive.status();
            boolean clientError = status >= 400 && status < 500 && status != 409 && status != 429;
            if (decisive.succeeded() || clientError || System.nanoTime() - first > DEADLINE_MILLIS * 1_000_000) {
                return;
            }
            Thread.sleep(1 + (long) (jitter.nextDouble() * backoff));
            backoff = Math.min(BACKOFF_CAP_MILLIS, backoff * 2);
        }
    }

    /**
     * Sends each payment that has a 2xx once more with its key, as a client whose answer was lost would,
     * retrying until an answer that is final (a 2xx, or a client error other than 409/429) or
     * {@code deadlineMillis}; every request is added to the payment's record. Returns, for each payment
     * sent again, its decisive attempt (the last one if none was final).
     */
    Map<PaymentRecord, Attempt> resendConfirmed(List<PaymentRecord> payments, long deadlineMillis) throws InterruptedException {
        Map<PaymentRecord, Attempt> decisive = new LinkedHashMap<>();
        try {
            for (PaymentRecord record : payments) {
                java.util.Optional<Attempt> first = record.attempts().stream().filter(Attempt::succeeded).findFirst();
                if (first.isEmpty()) {
                    continue;
                }
                long deadline = System.nanoTime() + deadlineMillis * 1_000_000;
                long backoff = 50;
                while (true) {
                    Attempt attempt = send(record, first.get().key(), 0, record.attempts().size() + 1);
                    int status = attempt.status();
                    boolean clientError = status >= 400 && status < 500 && status != 409 && status != 429;
                    if (attempt.succeeded() || clientError || System.nanoTime() > deadline) {
                        decisive.put(record, attempt);
                        break;
                    }
                    Thread.sleep(backoff);
                    backoff = Math.min(BACKOFF_CAP_MILLIS, backoff * 2);
                }
            }
        } finally {
            requests.shutdownNow();
        }
        return decisive;
    }

    private static Attempt firstSuccess(List<Future<Attempt>> round) {
        for (Future<Attempt> future : round) {
            if (future.isDone()) {
                Attempt attempt = result(future);
                if (attempt.succeeded()) {
                    return attempt;
                }
            }
        }
        return null;
    }

    private static Attempt last(List<Future<Attempt>> round) {
        return result(round.get(round.size() - 1));
    }

    private static void awaitAll(List<Future<Attempt>> round) {
        round.forEach(FleetClients::result);
    }

    private static Attempt result(Future<Attempt> future) {
        try {
            return future.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        } catch (java.util.concurrent.ExecutionException e) {
            throw new IllegalStateException("a fleet request failed", e.getCause());
        }
    }

    private Attempt send(PaymentRecord record, String key, int sender, int number) {
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put("Content-Type", "application/json");
        headers.put(PaymentsServiceContract.KEY_HEADER, key);
        long started = System.nanoTime();
        LabHttp.Result result = LabHttp.exchange(port, "POST", PaymentsServiceContract.PAYMENTS_PATH, headers,
                PaymentsServiceContract.body(record.payment()), READ_TIMEOUT);
        LabHttp.Response response = result.response();
        int status = response == null ? 0 : response.status();
        boolean replayed = response != null && "true".equalsIgnoreCase(response.header(PaymentsServiceContract.REPLAYED_HEADER));
        Attempt attempt = new Attempt(sender, number, key, (started - startNanos) / 1_000_000, result.micros(), result.sent(), status,
                result.failure(), replayed, status >= 200 && status < 300 ? response.body() : null);
        record.add(attempt);
        return attempt;
    }

    private static java.util.concurrent.ThreadFactory daemon(String prefix) {
        AtomicInteger count = new AtomicInteger();
        return runnable -> {
            Thread thread = new Thread(runnable, prefix + "-" + count.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        };
    }
}
