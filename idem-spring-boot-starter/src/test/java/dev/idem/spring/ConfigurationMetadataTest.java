package dev.idem.spring;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The configuration metadata that spring-boot-configuration-processor generates from
 * {@link IdemProperties}, {@link IdemInboxProperties} and {@link IdemAdminProperties} (merged with the additional metadata), which IDEs use to complete and
 * document {@code idem.*}: every property is there, described, with its default.
 */
class ConfigurationMetadataTest {

    @Test
    void everyPropertyIsDescribedWithItsDefault() throws Exception {
        JsonNode metadata;
        try (InputStream in = getClass().getClassLoader().getResourceAsStream("META-INF/spring-configuration-metadata.json")) {
            assertThat(in).as("generated into the starter's classes (and so its jar)").isNotNull();
            metadata = JsonMapper.shared().readTree(in);
        }
        Map<String, JsonNode> properties = new HashMap<>();
        for (JsonNode property : metadata.get("properties")) {
            // The processor also describes the actuator endpoint's management.endpoint.idem.* settings, which are Spring Boot's.
            if (property.get("name").asString().startsWith("idem.")) {
                properties.put(property.get("name").asString(), property);
            }
        }
        Map<String, String> defaults = Map.ofEntries(
                Map.entry("idem.enabled", "true"),
                Map.entry("idem.header-name", "Idempotency-Key"),
                Map.entry("idem.methods", "[\"POST\",\"PATCH\"]"),
                Map.entry("idem.default-policy", "annotated"),
                Map.entry("idem.lease", "30s"),
                Map.entry("idem.retention", "24h"),
                Map.entry("idem.tombstones", "0"),
                Map.entry("idem.in-flight", "reject"),
                Map.entry("idem.max-wait", "10s"),
                Map.entry("idem.not-stored-statuses", "[\"408\",\"409\",\"425\",\"429\",\"5xx\"]"),
                Map.entry("idem.failure-retry-after", "2s"),
                Map.entry("idem.schema.retry-for", "60s"),
                Map.entry("idem.max-request-bytes", "1MB"),
                Map.entry("idem.max-response-bytes", "1MB"),
                Map.entry("idem.store", "jdbc"),
                Map.entry("idem.table-name", "idem_record"),
                Map.entry("idem.coalesce-commits", "auto"),
                Map.entry("idem.durability-check", "require-durable"),
                Map.entry("idem.migrations", "idem"),
                Map.entry("idem.redis.url", "redis://127.0.0.1:6379"),
                Map.entry("idem.redis.key-prefix", "idem:"),
                Map.entry("idem.redis.keep-keys", "false"),
                Map.entry("idem.redis.persistence-check", "require-aof"),
                Map.entry("idem.redis.cluster-nodes", "[]"),
                Map.entry("idem.redis.ack-replicas", "auto"),
                Map.entry("idem.redis.ack-timeout", "1s"),
                Map.entry("idem.nats-kv.servers", "[\"nats://127.0.0.1:4222\"]"),
                Map.entry("idem.nats-kv.bucket", "idem"),
                Map.entry("idem.nats-kv.replicas", "3"),
                Map.entry("idem.nats-kv.max-age", "2d"),
                Map.entry("idem.nats-kv.replication-check", "refuse"),
                Map.entry("idem.nats-kv.request-timeout", "2s"),
                Map.entry("idem.schema.initialize", "true"),
                Map.entry("idem.sweeper.enabled", "true"),
                Map.entry("idem.completer.enabled", "true"),
                Map.entry("idem.completer.delay", "1m"),
                Map.entry("idem.completer.poll-interval", "10s"),
                Map.entry("idem.completer.max-attempts", "5"),
                Map.entry("idem.sweeper.interval", "1m"),
                Map.entry("idem.sweeper.batch-size", "500"),
                Map.entry("idem.jdbc.partitions.width", "0"),
                Map.entry("idem.jdbc.partitions.horizon", "8d"),
                Map.entry("idem.scope.credential-header", "\"\""),
                Map.entry("idem.filter.order", "-90"),
                Map.entry("idem.inbox.max-attempts", "5"),
                Map.entry("idem.inbox.retention", "7d"),
                Map.entry("idem.inbox.quarantine-error", "class-name"),
                Map.entry("idem.inbox.partitions.width", "0"),
                Map.entry("idem.admin.role", "IDEM_ADMIN"),
                Map.entry("idem.admin.read-only", "false"),
                Map.entry("idem.admin.show-content", "false"),
                Map.entry("idem.admin.console.enabled", "false"),
                Map.entry("idem.admin.console.path", "/idem-admin"));

        assertThat(properties.keySet()).containsExactlyInAnyOrderElementsOf(defaults.keySet());
        defaults.forEach((name, value) -> {
            JsonNode property = properties.get(name);
            assertThat(property.path("description").asString()).as("description of %s", name).isNotBlank();
            JsonNode defaultValue = property.get("defaultValue");
            assertThat(defaultValue).as("default of %s", name).isNotNull();
            assertThat(defaultValue.isString() ? defaultValue.asString() : defaultValue.toString())
                    .as("default of %s", name).isEqualTo(value.equals("\"\"") ? "" : value);
        });
    }
}
