package dev.idem.demo.ledger;

/** One row of {@code ledger_entry}; {@code messageId} may be null (see {@link LedgerTable}). */
record LedgerEntry(long entryId, String paymentId, String card, long amount, String currency, String messageId) {
}
