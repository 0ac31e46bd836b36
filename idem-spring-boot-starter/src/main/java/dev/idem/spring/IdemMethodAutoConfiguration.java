package dev.idem.spring;

import dev.idem.Idem;
import dev.idem.spring.internal.JacksonMethodJson;
import org.aopalliance.intercept.MethodInterceptor;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Role;
import org.springframework.core.env.Environment;

/**
 * {@link IdempotentMethod} on methods of any Spring bean: a bean post-processor that proxies such
 * beans and runs each annotated method through the application's {@link Idem}, storing its return
 * value with the application's Jackson mapper (Jackson 3's {@code JsonMapper} on Spring Boot 4, Jackson 2's
 * {@code ObjectMapper} on Spring Boot 3).
 */
@AutoConfiguration(after = IdemAutoConfiguration.class)
@ConditionalOnClass(value = {Idem.class, MethodInterceptor.class}, name = JacksonMethodJson.MAPPER_CLASS)
@ConditionalOnBooleanProperty(name = "idem.enabled", matchIfMissing = true)
public class IdemMethodAutoConfiguration {

    /** Static: a post-processor is created before the other beans, so it takes its dependencies lazily. */
    @Bean
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    static IdempotentMethodPostProcessor idempotentMethodPostProcessor(ObjectProvider<Idem> idem,
                                                                      ObjectProvider<IdemProperties> properties,
                                                                      Environment environment) {
        return new IdempotentMethodPostProcessor(idem, properties, environment);
    }
}
