package dev.idem.demo.payments;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.env.StandardEnvironment;

class DemoSettingsTest {

    private static DemoSettings settings(Map<String, Object> flags) {
        StandardEnvironment env = new StandardEnvironment();
        env.getPropertySources().addFirst(new MapPropertySource("flags", flags));
        return DemoSettings.from(env);
    }

    @Test
    void defaultsAreTheCorrectVariantOnSqliteUnderDataPayments() {
        DemoSettings s = settings(Map.of());
        assertThat(s.variant()).isEqualTo(Variant.CORRECT);
        assertThat(s.dataDir()).isEqualTo(Path.of("data/payments").toAbsolutePath());
        assertThat(s.sqliteFile()).isEqualTo(Path.of("data/payments/payments.db").toAbsolutePath());
        assertThat(s.gatewayUrl()).isEqualTo(URI.create("http://127.0.0.1:8090"));
        assertThat(s.gatewayTimeout()).isEqualTo(Duration.ofSeconds(10));
        assertThat(s.crashAt()).isNull();
        assertThat(s.eventsKafka()).as("no payment events unless a broker is named").isNull();
        assertThat(s.eventsTopic()).isEqualTo("payment-events");
        if (System.getenv(DemoSettings.DB_ENVIRONMENT_VARIABLE) == null) {
            assertThat(s.db()).isNull();
            assertThat(s.databaseLabel()).startsWith("SQLite ");
        }
    }

    @Test
    void flagsAreRead() {
        DemoSettings s = settings(Map.of("variant", "memory-store", "data-dir", "/tmp/x", "db",
                "jdbc:postgresql://127.0.0.1:5432/test?user=postgres&password=secret", "gateway.url", "http://127.0.0.1:9/",
                "gateway.timeout", "3s", "crash-at", "after-gateway-call"));
        assertThat(s.variant()).isEqualTo(Variant.MEMORY_STORE);
        assertThat(s.dataDir()).isEqualTo(Path.of("/tmp/x"));
        assertThat(s.gatewayUrl()).isEqualTo(URI.create("http://127.0.0.1:9"));
        assertThat(s.gatewayTimeout()).isEqualTo(Duration.ofSeconds(3));
        assertThat(s.crashAt()).isEqualTo(CrashPoint.AFTER_GATEWAY_CALL);
        assertThat(s.databaseLabel()).contains("password=***").doesNotContain("secret");
    }

    @Test
    void coalescingIsTheDialectsUnlessForcedOnOrOffAndABadValueIsAStartUpError() {
        assertThat(settings(Map.of()).coalesce()).as("the dialect decides").isNull();
        assertThat(settings(Map.of("coalesce", "dialect")).coalesce()).isNull();
        assertThat(settings(Map.of("coalesce", "on")).coalesce()).isTrue();
        assertThat(settings(Map.of("coalesce", " OFF ")).coalesce()).isFalse();
        assertThatThrownBy(() -> settings(Map.of("coalesce", "true"))).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("--coalesce must be on, off or dialect, was 'true'");
    }

    @Test
    void eventFlagsAreReadAndChecked() {
        DemoSettings s = settings(Map.of("events.kafka", "127.0.0.1:9092,kafka-2:9093", "events.topic", "payments.v1"));
        assertThat(s.eventsKafka()).isEqualTo("127.0.0.1:9092,kafka-2:9093");
        assertThat(s.eventsTopic()).isEqualTo("payments.v1");
        assertThatThrownBy(() -> settings(Map.of("events.kafka", "http://broker"))).hasMessageContaining("--events.kafka must be host:port");
        assertThatThrownBy(() -> settings(Map.of("events.topic", "a topic"))).hasMessageContaining("--events.topic must be a Kafka topic name");
    }

    @Test
    void badValuesNameTheFlagAndTheChoices() {
        assertThatThrownBy(() -> settings(Map.of("variant", "fast"))).hasMessageContaining("--variant must be one of correct, key-after-effect, memory-store, was 'fast'");
        assertThatThrownBy(() -> settings(Map.of("crash-at", "later"))).hasMessageContaining("--crash-at must be one of after-claim,");
        assertThatThrownBy(() -> settings(Map.of("db", "jdbc:mysql://x?password=secret")))
                .hasMessageContaining("--db must be a PostgreSQL JDBC URL").hasMessageNotContaining("secret");
        assertThatThrownBy(() -> settings(Map.of("gateway.url", "ftp://x"))).hasMessageContaining("--gateway.url");
        assertThatThrownBy(() -> settings(Map.of("gateway.timeout", "0s"))).hasMessageContaining("--gateway.timeout must be positive");
        assertThatThrownBy(() -> settings(Map.of("gateway.timeout", "soon"))).hasMessageContaining("--gateway.timeout must be a duration");
    }

    @Test
    void onlyTheCorrectVariantIsNotBroken() {
        assertThat(Variant.CORRECT.deliberatelyBroken()).isFalse();
        assertThat(Variant.KEY_AFTER_EFFECT.deliberatelyBroken()).isTrue();
        assertThat(Variant.MEMORY_STORE.deliberatelyBroken()).isTrue();
    }
}
