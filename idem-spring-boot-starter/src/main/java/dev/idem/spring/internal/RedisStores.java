package dev.idem.spring.internal;

import dev.idem.redis.PersistenceCheck;
import dev.idem.redis.RedisIdempotencyStore;
import dev.idem.spring.IdemProperties;
import io.lettuce.core.RedisURI;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;

/**
 * Builds the Redis store from {@code idem.redis.*}. Only loaded when idem-redis is on the class path
 * and {@code idem.store=redis}.
 */
public final class RedisStores {
    private RedisStores() {
    }

    /**
     * @throws InvalidConfigurationPropertyValueException naming the bad property; the URL's value is
     *         never shown, since it may hold a password
     */
    public static RedisIdempotencyStore build(IdemProperties.Redis settings) {
        RedisURI uri;
        try {
            uri = RedisURI.create(settings.getUrl());
        } catch (RuntimeException e) {
            throw new InvalidConfigurationPropertyValueException("idem.redis.url", "(not shown: it may hold a password)",
                    "must be a redis://, rediss:// or redis-sentinel:// URI");
        }
        RedisIdempotencyStore.Builder builder = RedisIdempotencyStore.builder(uri);
        try {
            builder.keyPrefix(settings.getKeyPrefix());
        } catch (IllegalArgumentException e) {
            throw new InvalidConfigurationPropertyValueException("idem.redis.key-prefix", settings.getKeyPrefix(), e.getMessage());
        }
        return builder.persistenceCheck(settings.getPersistenceCheck() == IdemProperties.Redis.PersistenceCheck.SKIP
                ? PersistenceCheck.SKIP : PersistenceCheck.REQUIRE_AOF).build();
    }
}
