package dev.idem.demo.gateway;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import dev.idem.IdempotencyKey;
import dev.idem.InvalidKeyException;
import dev.idem.Outcome;
import dev.idem.Scope;
import dev.idem.StoredResponse;
import dev.idem.jdbc.TransactionalIdem;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * {@code POST /charges}: validates, then records the charge and its response in one transaction
 * with the idempotency claim ({@link TransactionalIdem}), so a charge can never exist without the
 * record that makes its retry a replay.
 */
final class ChargeHandler implements HttpHandler {
    static final String PATH = "/charges";
    static final String FAULT_HEADER = "X-Fault";
    static final String KEY_HEADER = "Idempotency-Key";
    static final int MAX_BODY_BYTES = 16 * 1024;
    /** The gateway has no merchants: every caller shares one scope. */
    private static final Scope SCOPE = Scope.of("merchant", "POST /charges");

    private final TransactionalIdem idem;
    private final ChargeLedger ledger;
    private final FaultPlan startupFaults;
    private final FaultDice dice;
    private final JsonMapper json;

    ChargeHandler(TransactionalIdem idem, ChargeLedger ledger, FaultPlan startupFaults, FaultDice dice, JsonMapper json) {
        this.idem = idem;
        this.ledger = ledger;
        this.startupFaults = startupFaults;
        this.dice = dice;
        this.json = json;
    }

    @Override
    public void handle(HttpExchange exchange) throws IOException {
        try {
            if (!PATH.equals(exchange.getRequestURI().getPath())) {
                HttpIo.problem(exchange, json, 404, "Not Found", "no such resource");
                return;
            }
            if (!"POST".equals(exchange.getRequestMethod())) {
                HttpIo.problem(exchange, json, 405, "Method Not Allowed", "use POST", Map.of("Allow", List.of("POST")));
                return;
            }
            charge(exchange);
        } catch (InvalidRequestException e) {
            HttpIo.problem(exchange, json, e.status(), e.title(), e.getMessage());
        } catch (RuntimeException e) {
            // The class only: messages of lower layers may quote a key.
            System.err.println("card-gateway: charge failed with " + e.getClass().getName());
            HttpIo.problem(exchange, json, 500, "Internal Server Error", "the charge failed and was rolled back; retry with the same key");
        } finally {
            exchange.close();
        }
    }

    private void charge(HttpExchange exchange) throws IOException {
        FaultPlan faults = faults(exchange);
        IdempotencyKey key = key(exchange);
        HttpIo.requireJson(exchange);
        ChargeRequest request = ChargeRequest.parse(HttpIo.readBody(exchange, MAX_BODY_BYTES), json);

        pause(faults.latencyMillis());
        if (dice.roll(faults.failBefore())) {
            HttpIo.problem(exchange, json, 503, "Service Unavailable", "injected fault fail-before: nothing was charged",
                    Map.of("Retry-After", List.of("1")));
            return;
        }

        Outcome outcome = idem.execute(SCOPE, key, request.fingerprint(), connection -> {
            Charge charge = ledger.insert(connection, key.value(), request);
            return StoredResponse.of(201, Map.of("Content-Type", List.of(HttpIo.JSON)), body(charge));
        });

        if (outcome instanceof Outcome.Mismatch) {
            HttpIo.problem(exchange, json, 422, "Unprocessable Content",
                    "this Idempotency-Key was used for a different charge; use a new key for a new charge");
        } else if (outcome instanceof Outcome.InProgress inProgress) {
            long seconds = Math.max(1, (inProgress.retryAfter().toMillis() + 999) / 1000);
            HttpIo.problem(exchange, json, 409, "Conflict", "a charge with this Idempotency-Key is in progress; retry later",
                    Map.of("Retry-After", List.of(Long.toString(seconds))));
        } else {
            boolean replayed = outcome instanceof Outcome.Replayed;
            if (replayed) {
                ledger.countReplay(key.value());
            }
            StoredResponse response = replayed ? ((Outcome.Replayed) outcome).response() : ((Outcome.Executed) outcome).response();
            answerCommitted(exchange, faults, response, replayed);
        }
    }

    /** The charge is committed (now or earlier): the after-faults decide whether the caller learns it. */
    private void answerCommitted(HttpExchange exchange, FaultPlan faults, StoredResponse response, boolean replayed) throws IOException {
        ledger.answering();
        try {
            answerAfterFaults(exchange, faults, response, replayed);
        } finally {
            ledger.answered();
        }
    }

    private void answerAfterFaults(HttpExchange exchange, FaultPlan faults, StoredResponse response, boolean replayed) throws IOException {
        pause(faults.latencyAfterMillis());
        if (dice.roll(faults.resetAfter())) {
            // No status line, no headers: closing an exchange whose response was never started makes the
            // JDK server drop the TCP connection, so the caller reads end-of-stream instead of an answer.
            exchange.close();
            return;
        }
        if (dice.roll(faults.failAfter())) {
            HttpIo.problem(exchange, json, 500, "Internal Server Error", "injected fault fail-after: the charge may have been made");
            return;
        }
        Map<String, List<String>> headers = new LinkedHashMap<>(response.headers());
        if (replayed) {
            headers.put("Idempotent-Replayed", List.of("true"));
        }
        HttpIo.send(exchange, response.status(), headers, response.body());
    }

    private FaultPlan faults(HttpExchange exchange) {
        String header = exchange.getRequestHeaders().getFirst(FAULT_HEADER);
        if (header == null) {
            return startupFaults;
        }
        try {
            return FaultPlan.parse(header);
        } catch (IllegalArgumentException e) {
            throw InvalidRequestException.badRequest(FAULT_HEADER + " is invalid: " + e.getMessage());
        }
    }

    private static IdempotencyKey key(HttpExchange exchange) {
        List<String> values = exchange.getRequestHeaders().get(KEY_HEADER);
        if (values == null || values.isEmpty()) {
            throw InvalidRequestException.badRequest("the Idempotency-Key header is required: one key per charge, reused on every retry");
        }
        if (values.size() > 1) {
            throw InvalidRequestException.badRequest("send exactly one Idempotency-Key header");
        }
        try {
            return IdempotencyKey.parse(values.get(0));
        } catch (InvalidKeyException e) {
            throw InvalidRequestException.badRequest(e.getMessage());
        }
    }

    private byte[] body(Charge charge) {
        ObjectNode node = json.createObjectNode();
        node.put("chargeId", charge.chargeId());
        node.put("amount", charge.amount());
        node.put("currency", charge.currency());
        node.put("key", charge.key());
        return json.writeValueAsString(node).getBytes(StandardCharsets.UTF_8);
    }

    private static void pause(long millis) {
        if (millis <= 0) {
            return;
        }
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
