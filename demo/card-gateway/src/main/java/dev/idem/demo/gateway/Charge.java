package dev.idem.demo.gateway;

import java.time.Instant;

/** One row of the ledger: money that moved. */
public record Charge(String chargeId, String key, long amount, String currency, String card, String reference, Instant createdAt) {
}
