package dev.idem.demo.payments;

import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * A validated {@code POST /payments} body: {@code {"amount": 1250, "currency": "EUR", "card": "..."}}.
 * Amounts are integers in minor units. Validation is strict (unknown fields, fractions and strings for
 * the amount are refused): a payment service that guesses charges the wrong amount.
 */
public record PaymentRequest(long amount, String currency, String card) {
    /** The currencies the card gateway settles. */
    public static final Set<String> CURRENCIES = Set.of("EUR", "USD", "GBP", "RON", "CHF", "JPY");
    /** Largest amount in minor units (the gateway's limit). */
    public static final long MAX_AMOUNT = 100_000_000L;
    public static final int MAX_CARD_LENGTH = 64;
    private static final List<String> FIELDS = List.of("amount", "currency", "card");

    /** @throws PaymentProblem 400 naming the first thing wrong with the body */
    public static PaymentRequest parse(byte[] body, JsonMapper json) {
        if (body.length == 0) {
            throw PaymentProblem.invalid("the body is empty; send {\"amount\": <minor units>, \"currency\": \"EUR\", \"card\": \"...\"}");
        }
        JsonNode root;
        try {
            root = json.readTree(body);
        } catch (JacksonException e) {
            throw PaymentProblem.malformedJson();
        }
        if (root == null || !root.isObject()) {
            throw PaymentProblem.invalid("the body must be a JSON object {amount, currency, card}");
        }
        for (String name : root.propertyNames()) {
            if (!FIELDS.contains(name)) {
                throw PaymentProblem.invalid("unknown field '" + printable(name) + "'; allowed: amount, currency, card");
            }
        }
        return new PaymentRequest(amount(root.get("amount")), currency(root.get("currency")), card(root.get("card")));
    }

    private static long amount(JsonNode node) {
        if (node == null || node.isNull()) {
            throw PaymentProblem.invalid("amount is required: an integer in minor units, e.g. 1250 for 12.50");
        }
        if (!node.isIntegralNumber() || !node.canConvertToLong()) {
            throw PaymentProblem.invalid("amount must be an integer in minor units, e.g. 1250 for 12.50");
        }
        long amount = node.longValue();
        if (amount <= 0 || amount > MAX_AMOUNT) {
            throw PaymentProblem.invalid("amount must be between 1 and " + MAX_AMOUNT + ", was " + amount);
        }
        return amount;
    }

    private static String currency(JsonNode node) {
        if (node == null || node.isNull()) {
            throw PaymentProblem.invalid("currency is required, one of " + sortedCurrencies());
        }
        if (!node.isString() || !CURRENCIES.contains(node.stringValue())) {
            throw PaymentProblem.invalid("currency must be one of " + sortedCurrencies());
        }
        return node.stringValue();
    }

    private static String card(JsonNode node) {
        if (node == null || node.isNull()) {
            throw PaymentProblem.invalid("card is required (1-" + MAX_CARD_LENGTH + " printable ASCII characters)");
        }
        if (!node.isString()) {
            throw PaymentProblem.invalid("card must be a string");
        }
        String card = node.stringValue();
        if (card.isEmpty() || card.length() > MAX_CARD_LENGTH) {
            throw PaymentProblem.invalid("card must have 1-" + MAX_CARD_LENGTH + " characters, had " + card.length());
        }
        for (int i = 0; i < card.length(); i++) {
            char c = card.charAt(i);
            if (c < 0x20 || c > 0x7E) {
                throw PaymentProblem.invalid("card has a character outside printable ASCII at position " + i);
            }
        }
        return card;
    }

    private static String sortedCurrencies() {
        return String.join(", ", new TreeSet<>(CURRENCIES));
    }

    private static String printable(String name) {
        String cut = name.length() > 40 ? name.substring(0, 40) + "..." : name;
        return cut.replaceAll("[^\\x20-\\x7E]", "?");
    }
}
