package dev.idem.demo.lab;

/** One row of the gateway's {@code GET /ledger}: money that really moved. */
public record LedgerCharge(String chargeId, String key, long amount, String currency, String card, String reference, String createdAt) {
}
