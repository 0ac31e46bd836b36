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
 * @param ledger         the consumer side of a messaging scenario; null for the others
 * @param abandonment    what became of the payments whose client gave up ({@link Fault#GIVE_UP_AFTER_CHARGE}); null for the others
 */
public record ScenarioResult(Scenario scenario, Figures figures, boolean asExpected, Map<String, Long> proxyStats, int kills,
                             int serviceStarts, long millis, List<PaymentRecord> records, List<LedgerCharge> charges,
                             LedgerFigures ledger, Abandonment abandonment) {
    /** A result of a scenario without abandoned payments. */
    public ScenarioResult(Scenario scenario, Figures figures, boolean asExpected, Map<String, Long> proxyStats, int kills,
                          int serviceStarts, long millis, List<PaymentRecord> records, List<LedgerCharge> charges,
                          LedgerFigures ledger) {
        this(scenario, figures, asExpected, proxyStats, kills, serviceStarts, millis, records, charges, ledger, null);
    }

    /** A result of a scenario about the HTTP path only. */
    public ScenarioResult(Scenario scenario, Figures figures, boolean asExpected, Map<String, Long> proxyStats, int kills,
                          int serviceStarts, long millis, List<PaymentRecord> records, List<LedgerCharge> charges) {
        this(scenario, figures, asExpected, proxyStats, kills, serviceStarts, millis, records, charges, null);
    }
}
