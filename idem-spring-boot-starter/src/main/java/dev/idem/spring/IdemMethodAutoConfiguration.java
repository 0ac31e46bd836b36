package dev.idem.spring;

import dev.idem.Idem;
import org.aopalliance.intercept.MethodInterceptor;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Role;
import org.springframework.core.env.Environment;
import tools.jackson.databind.json.JsonMapper;

/**
 * {@link IdempotentMethod} on methods of any Spring bean: a bean post-processor that proxies such
 * beans and runs each annotated method through the application's {@link Idem}, storing its return
 * value with the application's {@link JsonMapper}.
 */
@AutoConfiguration(after = IdemAutoConfiguration.class)
@ConditionalOnClass({Idem.class, MethodInterceptor.class, JsonMapper.class})
@ConditionalOnBooleanProperty(name = "idem.enabled", matchIfMissing = true)
public class IdemMethodAutoConfiguration {

    /** Static: a post-processor is created before the other beans, so it takes its dependencies lazily. */
    @Bean
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    static IdempotentMethodPostProcessor idempotentMethodPostProcessor(ObjectProvider<Idem> idem,
                                                                      ObjectProvider<IdemProperties> properties,
                                                                      ObjectProvider<JsonMapper> jsonMappers,
                                                                      Environment environment) {
        return new IdempotentMethodPostProcessor(idem, properties, jsonMappers, environment);
    }
}
