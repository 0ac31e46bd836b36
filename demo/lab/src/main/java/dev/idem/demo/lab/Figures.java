package dev.idem.demo.lab;

import java.util.Map;

/**
 * What was counted for one scenario: from the gateway's ledger and the client's records, never
 * from what the scenario was meant to do.
 *
 * @param payments               logical payments
 * @param requestsSent           HTTP requests the clients wrote to a connection
 * @param charges                ledger rows for these payments' cards
 * @param lost                   payments with no charge whose client gave up
 * @param duplicated             payments charged more than once
 * @param unconfirmed            payments charged whose client gave up without a 2xx (money taken, customer told it failed)
 * @param differingKeys          keys whose 2xx replies were not all identical
 * @param confirmedWithoutCharge payments a 2xx confirmed but the ledger does not have (should never happen)
 * @param expired                requests answered 410 {@code key-expired} (a retry after the key's response expired, with tombstones)
 * @param p50Millis              median request latency
 * @param p99Millis              99th percentile request latency
 * @param chargesPerPayment      how many payments were charged 0, 1, 2 and 3 or more times (keys "0", "1", "2", "3+")
 */
public record Figures(int payments, int requestsSent, int charges, int lost, int duplicated, int unconfirmed, int differingKeys,
                      int confirmedWithoutCharge, int expired, double p50Millis, double p99Millis, Map<String, Integer> chargesPerPayment) {
}
