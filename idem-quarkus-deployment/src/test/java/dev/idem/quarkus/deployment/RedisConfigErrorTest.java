package dev.idem.quarkus.deployment;

import static org.assertj.core.api.Assertions.assertThat;

import io.quarkus.test.QuarkusUnitTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** {@code quarkus.idem.store=redis} with neither {@code quarkus.idem.redis.url} nor {@code quarkus.redis.hosts}: startup fails naming both. */
class RedisConfigErrorTest {
    @RegisterExtension
    static final QuarkusUnitTest APP = new QuarkusUnitTest()
            .withEmptyApplication()
            .overrideConfigKey("quarkus.devservices.enabled", "false")
            .overrideConfigKey("quarkus.idem.store", "redis")
            .assertException(failure -> assertThat(AsynchronousResourceRefusedTest.messages(failure))
                    .contains("quarkus.idem.store=redis needs a Redis server")
                    .contains("quarkus.idem.redis.url")
                    .contains("quarkus.redis.hosts"));

    @Test
    void startupFailsNamingThePropertiesThatSayWhereRedisIs() {
        // The application never starts: the extension's assertion on the failure is the test.
    }
}
