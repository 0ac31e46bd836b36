package dev.idem.spring.internal;

import dev.idem.spi.Purgeable;
import java.util.Objects;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;

/**
 * Every bean of one {@link Purgeable} type that the context has already created, purged as one:
 * a lazy bean that was never used (an inbox of an application without listeners) is not created,
 * and so gets no tables, just to be swept.
 */
public final class InstantiatedPurgeables implements Purgeable {
    private final ConfigurableListableBeanFactory beans;
    private final Class<? extends Purgeable> type;

    public InstantiatedPurgeables(ConfigurableListableBeanFactory beans, Class<? extends Purgeable> type) {
        this.beans = Objects.requireNonNull(beans, "beans is null");
        this.type = Objects.requireNonNull(type, "type is null");
    }

    /** Purges each created bean in turn with what is left of {@code limit}; short only when every one was. */
    @Override
    public int purge(int limit) {
        int deleted = 0;
        for (String name : beans.getBeanNamesForType(type, false, false)) {
            if (deleted >= limit) {
                break;
            }
            if (beans.containsSingleton(name)) {
                deleted += beans.getBean(name, type).purge(limit - deleted);
            }
        }
        return deleted;
    }

    @Override
    public String toString() {
        return "InstantiatedPurgeables[" + type.getSimpleName() + "]";
    }
}
