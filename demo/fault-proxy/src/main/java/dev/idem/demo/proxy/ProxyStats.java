package dev.idem.demo.proxy;

/**
 * What a proxy did so far.
 *
 * @param connections        client connections accepted
 * @param requestsDropped    connections closed after the client sent its request, before it reached the server
 * @param responsesForwarded final responses passed to the client
 * @param responsesDropped   final responses read from the server (so the server handled the request) and not passed on
 * @param upstreamFailures   connections closed because the server could not be reached
 */
public record ProxyStats(long connections, long requestsDropped, long responsesForwarded, long responsesDropped, long upstreamFailures) {
    /** As JSON, for the proxy's admin endpoint. */
    public String toJson() {
        return "{\"connections\":" + connections + ",\"requestsDropped\":" + requestsDropped
                + ",\"responsesForwarded\":" + responsesForwarded + ",\"responsesDropped\":" + responsesDropped
                + ",\"upstreamFailures\":" + upstreamFailures + "}";
    }
}
