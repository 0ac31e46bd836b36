package dev.idem.demo.lab;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The lab's scenarios, in the order of the table: the naive clients, the broken servers, then idem;
 * then a retry after the key's response expired, without and with tombstones; then clients that give
 * up after the charge, without and with the service's completer; last the messaging
 * rows, where the service's payment events reach a ledger consumer through Kafka.
 */
public final class Scenarios {
    private static final List<Scenario> ALL = List.of(
            new Scenario("at-most-once", ClientStrategy.AT_MOST_ONCE, ServerVariant.CORRECT, Fault.LOSSY_NETWORK, Expectation.LOSES_PAYMENTS),
            new Scenario("retry-no-key", ClientStrategy.AT_LEAST_ONCE_NO_KEY, ServerVariant.CORRECT, Fault.LOSSY_NETWORK, Expectation.DUPLICATES_CHARGES),
            new Scenario("new-key-per-retry", ClientStrategy.NEW_KEY_PER_RETRY, ServerVariant.CORRECT, Fault.LOSSY_NETWORK, Expectation.DUPLICATES_CHARGES),
            new Scenario("key-after-effect", ClientStrategy.IDEMPOTENT, ServerVariant.KEY_AFTER_EFFECT, Fault.SIGKILL_MID_REQUEST, Expectation.DUPLICATES_CHARGES),
            new Scenario("memory-store", ClientStrategy.IDEMPOTENT, ServerVariant.MEMORY_STORE, Fault.RESTART_BETWEEN_RETRIES, Expectation.DUPLICATES_CHARGES),
            new Scenario("idem-lossy", ClientStrategy.IDEMPOTENT, ServerVariant.CORRECT, Fault.LOSSY_NETWORK, Expectation.EXACTLY_ONCE),
            new Scenario("idem-sigkill", ClientStrategy.IDEMPOTENT, ServerVariant.CORRECT, Fault.SIGKILL_MID_REQUEST, Expectation.EXACTLY_ONCE),
            new Scenario("idem-gateway-fail", ClientStrategy.IDEMPOTENT, ServerVariant.CORRECT, Fault.GATEWAY_FAIL_AFTER, Expectation.EXACTLY_ONCE),
            new Scenario("idem-double-click", ClientStrategy.IDEMPOTENT, ServerVariant.CORRECT, Fault.DOUBLE_CLICK, Expectation.EXACTLY_ONCE),
            new Scenario("expired-no-tombstones", ClientStrategy.IDEMPOTENT, ServerVariant.CORRECT, Fault.RETRY_AFTER_EXPIRY,
                    Expectation.DUPLICATES_CHARGES),
            new Scenario("expired-tombstones", ClientStrategy.IDEMPOTENT, ServerVariant.TOMBSTONES, Fault.RETRY_AFTER_EXPIRY,
                    Expectation.ANSWERS_EXPIRED),
            new Scenario("gave-up-no-completer", ClientStrategy.IDEMPOTENT, ServerVariant.NO_COMPLETER, Fault.GIVE_UP_AFTER_CHARGE,
                    Expectation.LEAVES_UNRECORDED),
            new Scenario("gave-up-completer", ClientStrategy.IDEMPOTENT, ServerVariant.COMPLETER, Fault.GIVE_UP_AFTER_CHARGE,
                    Expectation.COMPLETES_ABANDONED),
            new Scenario("ledger-no-inbox", ClientStrategy.IDEMPOTENT, ServerVariant.CORRECT, Fault.CONSUMER_KILLED_AFTER_COMMIT,
                    Expectation.DUPLICATES_LEDGER_ENTRIES, ConsumerMode.NO_INBOX),
            new Scenario("ledger-inbox", ClientStrategy.IDEMPOTENT, ServerVariant.CORRECT, Fault.CONSUMER_KILLED_AFTER_COMMIT,
                    Expectation.EXACTLY_ONCE, ConsumerMode.INBOX));

    private Scenarios() {
    }

    public static List<Scenario> all() {
        return ALL;
    }

    /**
     * The named scenarios in table order; an empty list means all.
     *
     * @throws IllegalArgumentException naming the unknown ones and listing the known
     */
    public static List<Scenario> select(List<String> ids) {
        if (ids == null || ids.isEmpty()) {
            return ALL;
        }
        Map<String, Scenario> byId = new LinkedHashMap<>();
        ALL.forEach(s -> byId.put(s.id(), s));
        List<String> unknown = new ArrayList<>();
        for (String id : ids) {
            if (!byId.containsKey(id.trim())) {
                unknown.add(id);
            }
        }
        if (!unknown.isEmpty()) {
            throw new IllegalArgumentException("unknown scenario(s) " + unknown + "; known: " + String.join(", ", byId.keySet()));
        }
        List<String> wanted = ids.stream().map(String::trim).toList();
        return ALL.stream().filter(s -> wanted.contains(s.id())).toList();
    }
}
