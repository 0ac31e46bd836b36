/**
 * idem's Redis store: every operation is one Lua script, leases are judged by Redis' clock, and
 * fencing tokens keep growing across releases and takeovers.
 *
 * <p>Lettuce is an automatic module; it is required transitively because the builder takes its
 * types (a client, a connection or a URI).
 */
@SuppressWarnings({"requires-automatic", "requires-transitive-automatic"})
module dev.idem.redis {
    requires transitive dev.idem.core;
    requires transitive lettuce.core;

    exports dev.idem.redis;
}
