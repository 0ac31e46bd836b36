package dev.idem.demo.ledger;

import java.util.regex.Pattern;
import tools.jackson.core.JacksonException;
import tools.jackson.core.StreamReadFeature;
import tools.jackson.core.TokenStreamLocation;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * A payment event as the payments service's outbox publishes it: record key = payment id, value =
 * UTF-8 JSON {@code {"paymentId":"pay_…","card":"…","amount":123,"currency":"EUR","chargeId":"…"}}.
 * {@code chargeId} is optional and not kept; other fields are ignored, so the event may grow.
 */
record PaymentEvent(String paymentId, String card, long amount, String currency) {
    static final int MAX_TEXT = 255;
    private static final Pattern CURRENCY = Pattern.compile("[A-Z]{3}");

    /** The mapper for events and for the HTTP answers: duplicate fields and trailing tokens are errors. */
    static JsonMapper jsonMapper() {
        return JsonMapper.builder()
                .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
                .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
                .build();
    }

    /**
     * Reads a record value.
     *
     * @throws InvalidEventException naming what is wrong; its message never quotes the value, since it
     *                               ends up in logs and in the inbox's quarantine table
     */
    static PaymentEvent parse(byte[] value, JsonMapper json) {
        if (value == null || value.length == 0) {
            throw new InvalidEventException("the record has no value; expected a JSON payment event");
        }
        JsonNode root;
        try {
            root = json.readTree(value);
        } catch (JacksonException e) {
            // Not e.getMessage(): Jackson quotes the offending token, which is part of the value.
            TokenStreamLocation at = e.getLocation();
            throw new InvalidEventException("the value is not well-formed JSON"
                    + (at == null ? "" : " (line " + at.getLineNr() + ", column " + at.getColumnNr() + ")"));
        }
        if (root == null || !root.isObject()) {
            throw new InvalidEventException("the value must be a JSON object {paymentId, card, amount, currency}");
        }
        String paymentId = text(root, "paymentId");
        String card = text(root, "card");
        JsonNode amount = root.get("amount");
        if (amount == null || amount.isNull()) {
            throw new InvalidEventException("amount is missing");
        }
        if (!amount.isIntegralNumber() || !amount.canConvertToLong()) {
            throw new InvalidEventException("amount must be a whole number of minor units that fits in 64 bits");
        }
        String currency = text(root, "currency");
        if (!CURRENCY.matcher(currency).matches()) {
            throw new InvalidEventException("currency must be three capital letters (ISO 4217)");
        }
        JsonNode chargeId = root.get("chargeId");
        if (chargeId != null && !chargeId.isNull() && !chargeId.isString()) {
            throw new InvalidEventException("chargeId must be a string");
        }
        return new PaymentEvent(paymentId, card, amount.longValue(), currency);
    }

    private static String text(JsonNode root, String field) {
        JsonNode node = root.get(field);
        if (node == null || node.isNull()) {
            throw new InvalidEventException(field + " is missing");
        }
        if (!node.isString()) {
            throw new InvalidEventException(field + " must be a string");
        }
        String value = node.stringValue();
        if (value.isEmpty() || value.length() > MAX_TEXT) {
            throw new InvalidEventException(field + " must have 1-" + MAX_TEXT + " characters, had " + value.length());
        }
        for (int i = 0; i < value.length(); i++) {
            if (Character.isISOControl(value.charAt(i))) {
                throw new InvalidEventException(field + " has a control character at position " + i);
            }
        }
        return value;
    }

    /** A record value that is not a payment event; the message names the problem, never the value. */
    static final class InvalidEventException extends IllegalArgumentException {
        private static final long serialVersionUID = 1L;

        InvalidEventException(String message) {
            super(message);
        }
    }
}
