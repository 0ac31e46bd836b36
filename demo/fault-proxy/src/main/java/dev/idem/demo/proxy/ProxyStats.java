package dev.idem.demo.proxy;

/**
 * What a proxy did so far.
 *
 * @param connections        client connections accepted
 * @param requestsDropped    connections closed after the client sent its request, before it reached the server
 * @param responsesForwarded final responses passed to the client
 * @param responsesDropped   final responses read from the server (so the server handled the request) and not passed on
 * @param upstreamFailures   connections closed because no server could be reached
 * @param failovers          connections that went to the next upstream because the one in turn refused them
 */
public record ProxyStats(long connections, long requestsDropped, long responsesForwarded, long responsesDropped, long upstreamFailures,
                         long failovers) {
    /** Figures of a proxy with one upstream (no failover). */
    public ProxyStats(long connections, long requestsDropped, long responsesForwarded, long responsesDropped, long upstreamFailures) {
        this(connections, requestsDropped, responsesForwarded, responsesDropped, upstreamFailures, 0);
    }

    /** As JSON, for the proxy's admin endpoint. */
    public String toJson() {
        return "{\"connections\":" + connections + ",\"requestsDropped\":" + requestsDropped
                + ",\"responsesForwarded\":" + responsesForwarded + ",\"responsesDropped\":" + responsesDropped
                + ",\"upstreamFailures\":" + upstreamFailures + ",\"failovers\":" + failovers + "}";
    }
}
