package dev.idem.demo.gateway;

import dev.idem.Fingerprint;
import java.util.Set;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * A validated {@code POST /charges} body: {@code {amount, currency, card, reference?}}.
 *
 * <p>Validation is strict (unknown fields, duplicate fields, fractions and strings for the amount
 * are refused) because a card gateway that guesses is a gateway that charges the wrong amount.
 */
public record ChargeRequest(long amount, String currency, String card, String reference) {
    /** The currencies this gateway settles; a small fixed set is enough for the demo. */
    public static final Set<String> CURRENCIES = Set.of("EUR", "USD", "GBP", "RON", "CHF", "JPY");
    /** Largest amount in minor units (one million in a two-decimal currency). */
    public static final long MAX_AMOUNT = 100_000_000L;
    public static final int MAX_CARD_LENGTH = 64;
    public static final int MAX_REFERENCE_LENGTH = 128;
    private static final Set<String> FIELDS = Set.of("amount", "currency", "card", "reference");

    /** @throws InvalidRequestException (400) saying which field is wrong and why */
    static ChargeRequest parse(byte[] body, JsonMapper json) {
        JsonNode root;
        try {
            root = json.readTree(body);
        } catch (JacksonException e) {
            throw InvalidRequestException.badRequest("the body is not valid JSON: " + e.getOriginalMessage());
        }
        if (root == null || !root.isObject()) {
            throw InvalidRequestException.badRequest("the body must be a JSON object {amount, currency, card, reference?}");
        }
        for (String name : root.propertyNames()) {
            if (!FIELDS.contains(name)) {
                throw InvalidRequestException.badRequest("unknown field '" + printable(name) + "'; allowed: amount, currency, card, reference");
            }
        }
        return new ChargeRequest(amount(root.get("amount")), currency(root.get("currency")),
                text(root.get("card"), "card", MAX_CARD_LENGTH, true), text(root.get("reference"), "reference", MAX_REFERENCE_LENGTH, false));
    }

    private static long amount(JsonNode node) {
        if (node == null || node.isNull()) {
            throw InvalidRequestException.badRequest("amount is required (an integer in minor units, e.g. 1250 for 12.50)");
        }
        if (!node.isIntegralNumber() || !node.canConvertToLong()) {
            throw InvalidRequestException.badRequest("amount must be an integer in minor units, e.g. 1250 for 12.50");
        }
        long amount = node.longValue();
        if (amount <= 0 || amount > MAX_AMOUNT) {
            throw InvalidRequestException.badRequest("amount must be 1-" + MAX_AMOUNT + ", was " + amount);
        }
        return amount;
    }

    private static String currency(JsonNode node) {
        if (node == null || node.isNull()) {
            throw InvalidRequestException.badRequest("currency is required, one of " + sorted());
        }
        if (!node.isString() || !CURRENCIES.contains(node.stringValue())) {
            throw InvalidRequestException.badRequest("currency must be one of " + sorted());
        }
        return node.stringValue();
    }

    private static String text(JsonNode node, String name, int maxLength, boolean required) {
        if (node == null || node.isNull()) {
            if (required) {
                throw InvalidRequestException.badRequest(name + " is required (1-" + maxLength + " visible ASCII characters)");
            }
            return null;
        }
        if (!node.isString()) {
            throw InvalidRequestException.badRequest(name + " must be a string");
        }
        String value = node.stringValue();
        if (value.isEmpty() || value.length() > maxLength) {
            throw InvalidRequestException.badRequest(name + " must have 1-" + maxLength + " characters, had " + value.length());
        }
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c < 0x20 || c > 0x7E) {
                throw InvalidRequestException.badRequest(name + " has a character outside printable ASCII at position " + i);
            }
        }
        return value;
    }

    private static String sorted() {
        return String.join(", ", new java.util.TreeSet<>(CURRENCIES));
    }

    private static String printable(String name) {
        String cut = name.length() > 40 ? name.substring(0, 40) + "…" : name;
        return cut.replaceAll("[^\\x20-\\x7E]", "?");
    }

    /**
     * The charge's identity for the idempotency record. Built from the validated fields, so key
     * order and whitespace in the JSON do not matter, but any change of amount, currency, card or
     * reference does (same key, other charge: 422).
     */
    Fingerprint fingerprint() {
        return Fingerprint.builder()
                .part("method", "POST")
                .part("route", "/charges")
                .part("amount", Long.toString(amount))
                .part("currency", currency)
                .part("card", card)
                .part("reference", reference == null ? "absent" : "present:" + reference)
                .build();
    }
}
