package dev.idem.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.Fingerprint;
import dev.idem.Idem;
import dev.idem.IdempotencyKey;
import dev.idem.Scope;
import dev.idem.StoredResponse;
import dev.idem.micrometer.MicrometerIdemListener;
import dev.idem.spi.IdempotencyStore;
import dev.idem.testing.NonDurableMemoryStore;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * {@code idem.claims} carries the operation (route pattern or method scope) as a tag, so replays are
 * countable per endpoint and per method, while principals and keys never become tags.
 */
class MeterOperationTagTest {
    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(IdemAutoConfiguration.class, IdemMethodAutoConfiguration.class))
            .withBean(IdempotencyStore.class, NonDurableMemoryStore::new)
            .withBean(MeterRegistry.class, SimpleMeterRegistry::new);

    static class Quotes {
        @IdempotentMethod(key = "#id")
        public String quote(String id) {
            return "quote " + id;
        }
    }

    @Test
    void replaysAreCountedPerRouteAndPerMethodWithoutPrincipalsOrKeys() {
        runner.withBean(Quotes.class).run(context -> {
            Idem idem = context.getBean(Idem.class);
            MeterRegistry registry = context.getBean(MeterRegistry.class);
            Fingerprint body = Fingerprint.builder().part("body", "1").build();
            for (String principal : new String[] {"user:alice", "user:bob"}) {
                Scope orders = Scope.parse(principal + " POST /orders/{id}/pay");
                idem.execute(orders, IdempotencyKey.of("secret-key-1"), body, run -> StoredResponse.of(201, new byte[0]));
                idem.execute(orders, IdempotencyKey.of("secret-key-1"), body, run -> StoredResponse.of(201, new byte[0]));
            }
            Quotes quotes = context.getBean(Quotes.class);
            quotes.quote("q-1");
            quotes.quote("q-1");
            quotes.quote("q-1");

            assertThat(registry.get(MicrometerIdemListener.CLAIMS).tags("outcome", "replayed", "operation", "POST /orders/{id}/pay")
                    .counter().count()).isEqualTo(2);
            assertThat(registry.get(MicrometerIdemListener.CLAIMS).tags("outcome", "acquired", "operation", "POST /orders/{id}/pay")
                    .counter().count()).isEqualTo(2);
            assertThat(registry.get(MicrometerIdemListener.CLAIMS)
                    .tags("outcome", "replayed", "operation", Quotes.class.getName() + "#quote(java.lang.String)").counter().count()).isEqualTo(2);
            for (Meter meter : registry.find(MicrometerIdemListener.CLAIMS).meters()) {
                for (Tag tag : meter.getId().getTags()) {
                    assertThat(tag.getValue()).doesNotContain("alice", "bob", "secret-key", "q-1");
                }
            }
        });
    }
}
