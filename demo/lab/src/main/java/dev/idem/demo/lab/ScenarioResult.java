package dev.idem.demo.lab;

import java.util.List;
import java.util.Map;

/**
 * A scenario's outcome.
 *
 * @param asExpected     whether the figures show what the scenario exists to show
 * @param proxyStats     the fault proxy's counters
 * @param kills          SIGKILLs of the service during the scenario
 * @param serviceStarts  service starts during the scenario (restarts after kills or between retries)
 * @param records        what the clients did
 * @param charges        the ledger rows of this scenario's payments
 */
public record ScenarioResult(Scenario scenario, Figures figures, boolean asExpected, Map<String, Long> proxyStats, int kills,
                             int serviceStarts, long millis, List<PaymentRecord> records, List<LedgerCharge> charges) {
}
