package dev.idem.redis.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class DurabilityTest {

    private static Map<String, String> config(String appendonly, String fsync, String maxmemory, String policy) {
        return Map.of("appendonly", appendonly, "appendfsync", fsync, "maxmemory", maxmemory, "maxmemory-policy", policy);
    }

    @Test
    @DisplayName("AOF fsynced always or every second without eviction is durable")
    void durableSettingsPass() {
        assertThat(Durability.problems(config("yes", "everysec", "0", "noeviction"))).isEmpty();
        assertThat(Durability.problems(config("yes", "always", "0", "allkeys-lru"))).isEmpty();
        assertThat(Durability.problems(config("yes", "always", "1073741824", "noeviction"))).isEmpty();
    }

    @Test
    @DisplayName("AOF off, fsync left to the OS, or eviction under a memory limit are each named")
    void eachProblemIsNamed() {
        assertThat(Durability.problems(config("no", "everysec", "0", "noeviction")))
                .singleElement().asString().startsWith("appendonly is 'no'");
        assertThat(Durability.problems(config("yes", "no", "0", "noeviction")))
                .singleElement().asString().startsWith("appendfsync is 'no'");
        assertThat(Durability.problems(config("yes", "everysec", "1073741824", "volatile-lru")))
                .singleElement().asString().startsWith("maxmemory-policy is 'volatile-lru' with maxmemory 1073741824");
        assertThat(Durability.problems(config("no", "no", "100mb", "allkeys-lru"))).hasSize(2);
        // A server (or proxy) that does not report a setting is not taken to be durable.
        assertThat(Durability.problems(Map.of())).hasSize(2).first().asString().startsWith("appendonly is '(not reported)'");
    }

    @Test
    @DisplayName("the refusal says how to fix it and how to skip the check")
    void refusalSaysHowToFixIt() {
        assertThat(Durability.refusal(Durability.problems(config("no", "everysec", "0", "noeviction"))))
                .contains("appendonly is 'no'", "'appendonly yes'", "'appendfsync everysec'", "about 1 s",
                        "'appendfsync always'", "persistenceCheck(PersistenceCheck.SKIP)");
    }
}
