package dev.idem.demo.lab;

/**
 * One logical payment: what a user means when pressing "pay" once. Its card is unique, so the
 * gateway's ledger can be joined to the client's records even when the client sent no key.
 */
public record Payment(String id, long amount, String currency, String card) {
}
