package dev.idem.demo.lab;

/**
 * What the failover row counted for one side besides the fleet checker's figures: the standby's lag
 * when the primary was killed, the acknowledged payments the promoted standby had forgotten, and how
 * long the switch took.
 *
 * @param replication    "asynchronous" or "synchronous"
 * @param lagBytes       write-ahead log the primary had written and the standby had not received, read just before the SIGKILL
 * @param acknowledged   payments answered 2xx before they were sent again after the failover
 * @param recordsLost    of those, payments whose answer after the failover was not a replay of their stored answer
 * @param chargedAgain   of those, payments the gateway got a charge request for while they were sent again (a charge or a
 *                       replay): each one's charge ran again after it was answered 2xx, and a gateway without keys of its own
 *                       would have made it twice
 * @param answered503    answers 503 (the retryable answer while no primary accepts writes)
 * @param switchMillis   from the SIGKILL until the promoted standby accepted writes
 * @param firstOkMillis  from the SIGKILL until the first 2xx of a request sent after it; -1 if none came
 */
public record FailoverFigures(String replication, long lagBytes, int acknowledged, int recordsLost, int chargedAgain, int answered503,
                              long switchMillis, long firstOkMillis) {
}
