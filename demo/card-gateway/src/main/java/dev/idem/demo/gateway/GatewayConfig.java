package dev.idem.demo.gateway;

import java.net.InetAddress;
import java.time.Duration;
import java.util.Objects;

/**
 * How a gateway runs.
 *
 * @param bind    the address to listen on (loopback by default: the demo never listens beyond the machine)
 * @param port    0 for any free port
 * @param faults  faults every request suffers unless its {@code X-Fault} header says otherwise
 * @param seed    seeds the generator that decides probabilistic faults
 * @param reset   clear the ledger and the idempotency records at start
 * @param threads request threads; latency faults hold one each while they sleep
 * @param retention how long a charge's key replays its answer (as a real gateway's keys, e.g. Stripe's 24 h);
 *                  after it the key is forgotten and a charge with it is a new charge
 */
public record GatewayConfig(InetAddress bind, int port, FaultPlan faults, long seed, boolean reset, int threads, Duration retention) {
    public static final Duration DEFAULT_RETENTION = Duration.ofHours(24);

    public GatewayConfig {
        Objects.requireNonNull(bind, "bind");
        Objects.requireNonNull(faults, "faults");
        Objects.requireNonNull(retention, "retention");
        if (retention.isNegative() || retention.isZero()) {
            throw new IllegalArgumentException("retention must be positive, was " + retention);
        }
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("port must be 0-65535, was " + port);
        }
        if (threads < 1) {
            throw new IllegalArgumentException("threads must be at least 1, was " + threads);
        }
    }

    /** Loopback, any free port, no faults, seed 1, no reset, 32 threads, keys kept 24 h. */
    public static GatewayConfig defaults() {
        return new GatewayConfig(InetAddress.getLoopbackAddress(), 0, FaultPlan.NONE, 1, false, 32, DEFAULT_RETENTION);
    }

    public GatewayConfig withPort(int port) {
        return new GatewayConfig(bind, port, faults, seed, reset, threads, retention);
    }

    public GatewayConfig withFaults(FaultPlan faults) {
        return new GatewayConfig(bind, port, faults, seed, reset, threads, retention);
    }

    public GatewayConfig withReset(boolean reset) {
        return new GatewayConfig(bind, port, faults, seed, reset, threads, retention);
    }

    public GatewayConfig withRetention(Duration retention) {
        return new GatewayConfig(bind, port, faults, seed, reset, threads, retention);
    }

    public GatewayConfig withSeed(long seed) {
        return new GatewayConfig(bind, port, faults, seed, reset, threads, retention);
    }
}
