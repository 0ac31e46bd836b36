package dev.idem.demo.lab;

/**
 * What was counted on the consumer side of a messaging scenario, from the ledger consumer's
 * {@code GET /ledger} once it had caught up with the topic.
 *
 * @param paid              payments the service confirmed (each should have exactly one ledger entry)
 * @param entries           ledger entries of the scenario's topic
 * @param duplicatedEntries entries beyond the first for a payment (applied more than once)
 * @param missing           confirmed payments with no ledger entry
 * @param consumerKills     times the consumer died between its database commit and its offset commit
 * @param consumerStarts    starts of the consumer (the first, and one per kill)
 */
public record LedgerFigures(int paid, int entries, int duplicatedEntries, int missing, int consumerKills, int consumerStarts) {
}
