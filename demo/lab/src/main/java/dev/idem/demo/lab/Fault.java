package dev.idem.demo.lab;

import java.time.Duration;

/**
 * What goes wrong during a scenario, and how the lab makes it happen: the proxy's drop rates, the
 * gateway's faults, how many senders race for one payment, and what the lab does to the service.
 */
public enum Fault {
    /** The proxy loses some requests before the service and some responses after it. */
    LOSSY_NETWORK("lost requests + responses", 0.15, 0.30, "none", 1, 1, Disruption.NONE),
    /** The service is SIGKILLed while requests are in flight (the gateway answers slowly, so some are past the charge), then restarted. */
    SIGKILL_MID_REQUEST("SIGKILL mid-request + restart", 0, 0, "latency-after=250", 1, 1, Disruption.KILL_DURING_TRAFFIC),
    /** Half the responses are lost; the service restarts after the first attempts, before any retry. */
    RESTART_BETWEEN_RETRIES("lost responses + restart before retries", 0, 0.5, "none", 1, 1, Disruption.RESTART_BEFORE_RETRIES),
    /** The gateway commits the charge and then answers 500, three times in ten. */
    GATEWAY_FAIL_AFTER("gateway fail-after (30%)", 0, 0, "fail-after=0.3", 1, 1, Disruption.NONE),
    /** 2 to 8 senders fire the same payment at once, each retrying; the gateway is slow enough for them to overlap. */
    DOUBLE_CLICK("2-8 concurrent sends (double-click)", 0, 0, "latency=100", 2, 8, Disruption.NONE),
    /**
     * The ledger consumer halts right after its database commit and before its offset commit, then is
     * restarted: the broker delivers that batch again.
     */
    CONSUMER_KILLED_AFTER_COMMIT("consumer killed between commit and ack", 0, 0, "none", 1, 1, Disruption.KILL_CONSUMER),
    /**
     * Every payment is paid once, then retried once more with its key after its response's retention
     * has passed — in the service and at the gateway alike, both running with a 2 s retention for the
     * row: long enough to pay, short enough to wait for (a real gateway forgets its keys too: Stripe's
     * after 24 h).
     */
    RETRY_AFTER_EXPIRY("retry after the response expired (2 s)", 0, 0, "none", 1, 1, Disruption.RETRY_AFTER_EXPIRY,
            Duration.ofSeconds(2)),
    /**
     * The service is SIGKILLed while requests are past the charge (as {@link #SIGKILL_MID_REQUEST}), and
     * every client gives up after its first request that reached the service (one refused while the
     * service restarts connects again): nobody retries. The lab then waits a while, looks at what the
     * service recorded, and only then retries each unanswered payment once, late.
     */
    GIVE_UP_AFTER_CHARGE("SIGKILL after the charge; clients give up", 0, 0, "latency-after=250", 1, 1, Disruption.KILL_THEN_GIVE_UP);

    /** What the lab does to the service during the scenario. */
    public enum Disruption { NONE, KILL_DURING_TRAFFIC, RESTART_BEFORE_RETRIES, KILL_CONSUMER, RETRY_AFTER_EXPIRY, KILL_THEN_GIVE_UP }

    private final String label;
    private final double dropRequest;
    private final double dropResponse;
    private final String gatewayFaults;
    private final int minSenders;
    private final int maxSenders;
    private final Disruption disruption;
    private final Duration keyRetention;

    Fault(String label, double dropRequest, double dropResponse, String gatewayFaults, int minSenders, int maxSenders, Disruption disruption) {
        this(label, dropRequest, dropResponse, gatewayFaults, minSenders, maxSenders, disruption, null);
    }

    Fault(String label, double dropRequest, double dropResponse, String gatewayFaults, int minSenders, int maxSenders, Disruption disruption,
          Duration keyRetention) {
        this.label = label;
        this.dropRequest = dropRequest;
        this.dropResponse = dropResponse;
        this.gatewayFaults = gatewayFaults;
        this.minSenders = minSenders;
        this.maxSenders = maxSenders;
        this.disruption = disruption;
        this.keyRetention = keyRetention;
    }

    public String label() {
        return label;
    }

    public double dropRequest() {
        return dropRequest;
    }

    public double dropResponse() {
        return dropResponse;
    }

    /** The gateway's {@code --fault} spec during this scenario. */
    public String gatewayFaults() {
        return gatewayFaults;
    }

    public int minSenders() {
        return minSenders;
    }

    public int maxSenders() {
        return maxSenders;
    }

    public Disruption disruption() {
        return disruption;
    }

    /** How long the service and the gateway keep a key's response during the scenario; null: their own defaults (24 h). */
    public Duration keyRetention() {
        return keyRetention;
    }
}
