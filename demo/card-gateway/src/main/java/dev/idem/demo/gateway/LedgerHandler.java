package dev.idem.demo.gateway;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * {@code GET /ledger}: every charge, the number of charges per idempotency key, and how many charge
 * requests were answered as replays of a charge already made, for whoever verifies (the lab). {@code DELETE /ledger}: forget everything, between scenarios.
 */
final class LedgerHandler implements HttpHandler {
    static final String PATH = "/ledger";

    private final ChargeLedger ledger;
    private final JsonMapper json;

    LedgerHandler(ChargeLedger ledger, JsonMapper json) {
        this.ledger = ledger;
        this.json = json;
    }

    @Override
    public void handle(HttpExchange exchange) throws IOException {
        try {
            if (!PATH.equals(exchange.getRequestURI().getPath())) {
                HttpIo.problem(exchange, json, 404, "Not Found", "no such resource");
            } else if ("GET".equals(exchange.getRequestMethod())) {
                HttpIo.sendJson(exchange, 200, list());
            } else if ("DELETE".equals(exchange.getRequestMethod())) {
                ObjectNode cleared = json.createObjectNode().put("cleared", ledger.clear());
                HttpIo.sendJson(exchange, 200, json.writeValueAsString(cleared).getBytes(StandardCharsets.UTF_8));
            } else {
                HttpIo.problem(exchange, json, 405, "Method Not Allowed", "use GET or DELETE", Map.of("Allow", List.of("GET, DELETE")));
            }
        } catch (SQLException | RuntimeException e) {
            System.err.println("card-gateway: ledger request failed with " + e.getClass().getName());
            HttpIo.problem(exchange, json, 500, "Internal Server Error", "the ledger could not be read");
        } finally {
            exchange.close();
        }
    }

    private byte[] list() throws SQLException {
        List<Charge> charges = ledger.all();
        ObjectNode root = json.createObjectNode();
        root.put("count", charges.size());
        ArrayNode rows = root.putArray("charges");
        Map<String, Integer> perKey = new TreeMap<>();
        for (Charge charge : charges) {
            ObjectNode row = rows.addObject();
            row.put("chargeId", charge.chargeId());
            row.put("key", charge.key());
            row.put("amount", charge.amount());
            row.put("currency", charge.currency());
            row.put("card", charge.card());
            row.put("reference", charge.reference());
            row.put("createdAt", charge.createdAt().toString());
            perKey.merge(charge.key(), 1, Integer::sum);
        }
        ObjectNode counts = root.putObject("perKey");
        perKey.forEach(counts::put);
        ObjectNode replays = root.putObject("replaysPerKey");
        ledger.replays().forEach(replays::put);
        root.put("answersPending", ledger.answersPending());
        return json.writeValueAsString(root).getBytes(StandardCharsets.UTF_8);
    }
}
