package dev.idem.spring;

import static dev.idem.spring.AutoConfigurationTest.rootCause;
import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.Fingerprint;
import dev.idem.Idem;
import dev.idem.IdempotencyKey;
import dev.idem.Outcome;
import dev.idem.Scope;
import dev.idem.StoredResponse;
import dev.idem.nats.kv.NatsKvIdempotencyStore;
import dev.idem.testing.NatsCluster;
import io.nats.client.Connection;
import io.nats.client.Nats;
import io.nats.client.Options;
import java.nio.charset.StandardCharsets;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** {@code idem.store=nats-kv}: the starter builds the key-value store on a three-node JetStream cluster. */
class NatsKvStoreAutoConfigurationTest {
    private static final AutoConfigurations IDEM = AutoConfigurations.of(IdemAutoConfiguration.class);

    private final String bucket = "idem-starter-" + UUID.randomUUID().toString().substring(0, 8);
    private NatsCluster cluster;

    @BeforeEach
    void findCluster() {
        cluster = NatsCluster.shared();
    }

    @AfterEach
    void deleteBucket() throws Exception {
        Options options = new Options.Builder().servers(cluster.clientUrls().toArray(new String[0]))
                .errorListener(new io.nats.client.ErrorListener() { }).build();
        try (Connection connection = Nats.connect(options)) {
            connection.keyValueManagement().delete(bucket);
        } catch (Exception e) {
            // Not created by the test that failed to start.
        }
    }

    private ApplicationContextRunner natsKv() {
        return new ApplicationContextRunner().withConfiguration(IDEM)
                .withPropertyValues("idem.store=nats-kv", "idem.nats-kv.servers=" + String.join(",", cluster.clientUrls()),
                        "idem.nats-kv.bucket=" + bucket);
    }

    @Test
    void buildsTheStoreOnAThreeReplicaBucketAndReplays() {
        natsKv().run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context.getBean(Idem.class).store()).isInstanceOf(NatsKvIdempotencyStore.class);
            Idem idem = context.getBean(Idem.class);
            Scope scope = Scope.of("alice", "POST /payments");
            IdempotencyKey key = IdempotencyKey.of("starter-" + UUID.randomUUID());
            Fingerprint fingerprint = Fingerprint.builder().part("body", "{}").build();
            StoredResponse first = StoredResponse.of(201, "first".getBytes(StandardCharsets.UTF_8));
            assertThat(idem.execute(scope, key, fingerprint, run -> first)).isInstanceOf(Outcome.Executed.class);
            assertThat(idem.execute(scope, key, fingerprint, run -> StoredResponse.of(201, new byte[0])))
                    .isEqualTo(new Outcome.Replayed(first));
        });
    }

    @Test
    void aBadSettingFailsStartupNamingTheProperty() {
        natsKv().withPropertyValues("idem.nats-kv.replicas=7").run(context -> {
            assertThat(context).hasFailed();
            assertThat(rootCause(context.getStartupFailure(), InvalidConfigurationPropertyValueException.class).getName())
                    .isEqualTo("idem.nats-kv.replicas");
        });
        natsKv().withPropertyValues("idem.nats-kv.bucket=no.dots").run(context -> {
            assertThat(context).hasFailed();
            assertThat(rootCause(context.getStartupFailure(), InvalidConfigurationPropertyValueException.class).getName())
                    .isEqualTo("idem.nats-kv.bucket");
        });
    }

    @Test
    void aBucketWithOneReplicaOnAThreeNodeClusterFailsStartup() {
        natsKv().withPropertyValues("idem.nats-kv.replicas=1").run(context -> {
            assertThat(context).hasFailed();
            assertThat(rootCause(context.getStartupFailure(), IllegalStateException.class)).hasMessageContaining("replicas: 1");
        });
    }
}
