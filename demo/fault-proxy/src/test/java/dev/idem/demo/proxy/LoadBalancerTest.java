package dev.idem.demo.proxy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.ServerSocket;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The fault proxy with several upstreams: round-robin, failover past a dead one, faults per upstream. */
class LoadBalancerTest {
    private final CountingServer first = start();
    private final CountingServer second = start();
    private final CountingServer third = start();
    private FaultProxy proxy;

    private static CountingServer start() {
        try {
            return new CountingServer();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    @AfterEach
    void stopAll() {
        if (proxy != null) {
            proxy.close();
        }
        first.close();
        second.close();
        third.close();
    }

    @Test
    void connectionsGoRoundRobinOverTheUpstreams() throws Exception {
        proxy = FaultProxy.builder("127.0.0.1", first.port()).upstream(upstream(second.port())).upstream(upstream(third.port()))
                .build().start();

        for (int i = 0; i < 9; i++) {
            assertThat(FaultProxyTest.exchange(proxy, "/echo", "n" + i)).startsWith("HTTP/1.1 200");
        }

        assertThat(first.handled()).isEqualTo(3);
        assertThat(second.handled()).isEqualTo(3);
        assertThat(third.handled()).isEqualTo(3);
        assertThat(proxy.stats().failovers()).isZero();
        assertThat(proxy.toString()).contains("round-robin");
    }

    @Test
    void aDeadUpstreamsConnectionsGoToTheNextOne() throws Exception {
        int dead;
        try (ServerSocket probe = new ServerSocket(0)) {
            dead = probe.getLocalPort();
        }
        proxy = FaultProxy.builder("127.0.0.1", first.port()).upstream(upstream(dead)).build().start();

        for (int i = 0; i < 6; i++) {
            assertThat(FaultProxyTest.exchange(proxy, "/echo", "n" + i)).startsWith("HTTP/1.1 200");
        }

        assertThat(first.handled()).as("every request answered by the live upstream").isEqualTo(6);
        assertThat(proxy.stats().failovers()).isEqualTo(3);
        assertThat(proxy.stats().upstreamFailures()).isZero();
    }

    @Test
    void anUpstreamsOwnDropsLoseOnlyItsResponses() throws Exception {
        proxy = FaultProxy.builder("127.0.0.1", first.port())
                .upstream(new Upstream("127.0.0.1", second.port(), 1.0, Duration.ZERO)).build().start();

        int lost = 0;
        for (int i = 0; i < 6; i++) {
            try {
                FaultProxyTest.exchange(proxy, "/echo", "n" + i);
            } catch (IOException e) {
                lost++;
            }
        }

        assertThat(lost).isEqualTo(3);
        assertThat(second.handled()).as("the lossy upstream did the work").isEqualTo(3);
        assertThat(proxy.stats().responsesDropped()).isEqualTo(3);
    }

    @Test
    void upstreamsParseWithTheirFaultsAndRefuseBadOnes() {
        Upstream parsed = Upstream.parse("127.0.0.1:8081;drop-response=0.2;delay-ms=50");
        assertThat(parsed).isEqualTo(new Upstream("127.0.0.1", 8081, 0.2, Duration.ofMillis(50)));
        assertThat(parsed.toString()).isEqualTo("127.0.0.1:8081;drop-response=0.2;delay-ms=50");

        assertThatThrownBy(() -> Upstream.parse("nohost")).hasMessageContaining("host:port");
        assertThatThrownBy(() -> Upstream.parse("h:1;drop-response=2")).hasMessageContaining("drop-response");
        assertThatThrownBy(() -> Upstream.parse("h:1;speed=3")).hasMessageContaining("unknown upstream option 'speed'");
        assertThatThrownBy(() -> Upstream.parse("h:x")).hasMessageContaining("port");
    }

    private static Upstream upstream(int port) {
        return new Upstream("127.0.0.1", port, 0, Duration.ZERO);
    }
}
