package dev.idem.spring;

import dev.idem.Idem;
import dev.idem.spring.internal.MethodPolicy;
import java.lang.reflect.Method;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.aopalliance.intercept.MethodInvocation;
import org.springframework.aop.support.AopUtils;
import org.springframework.aop.support.DefaultPointcutAdvisor;
import org.springframework.aop.support.annotation.AnnotationMatchingPointcut;
import org.springframework.aop.framework.autoproxy.AbstractBeanFactoryAwareAdvisingPostProcessor;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.core.BridgeMethodResolver;
import org.springframework.core.MethodIntrospector;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.env.PropertyResolver;
import org.springframework.util.ClassUtils;
import tools.jackson.databind.json.JsonMapper;

/**
 * Proxies the beans that have {@link IdempotentMethod} methods (Spring AOP, class-based proxies; an
 * existing proxy gets the advice added) and reads each such method's annotation as the bean is
 * initialised, so a bad one fails startup naming the method. Once all singletons exist, each
 * method's engine is derived from the application's {@link Idem} bean.
 */
final class IdempotentMethodPostProcessor extends AbstractBeanFactoryAwareAdvisingPostProcessor
        implements SmartInitializingSingleton {
    private static final long serialVersionUID = 1L;

    private final transient ObjectProvider<Idem> idem;
    private final transient ObjectProvider<IdemProperties> properties;
    private final transient ObjectProvider<JsonMapper> jsonMappers;
    private final transient PropertyResolver placeholders;
    private final transient Map<MethodKey, MethodPolicy> policies = new ConcurrentHashMap<>();
    private transient volatile JsonMapper jsonMapper;

    private record MethodKey(Class<?> type, Method method) {
    }

    IdempotentMethodPostProcessor(ObjectProvider<Idem> idem, ObjectProvider<IdemProperties> properties,
                                  ObjectProvider<JsonMapper> jsonMappers, PropertyResolver placeholders) {
        this.idem = idem;
        this.properties = properties;
        this.jsonMappers = jsonMappers;
        this.placeholders = placeholders;
        this.advisor = new DefaultPointcutAdvisor(new AnnotationMatchingPointcut(null, IdempotentMethod.class, true),
                new IdempotentMethodInterceptor(this));
        // As Spring Boot's default (spring.aop.proxy-target-class=true): beans stay injectable by class.
        setProxyTargetClass(true);
        setBeforeExistingAdvisors(false);
    }

    @Override
    public Object postProcessAfterInitialization(Object bean, String beanName) {
        Class<?> type = ClassUtils.getUserClass(AopUtils.getTargetClass(bean));
        Map<Method, IdempotentMethod> annotated = MethodIntrospector.selectMethods(type,
                (MethodIntrospector.MetadataLookup<IdempotentMethod>) m -> AnnotatedElementUtils.findMergedAnnotation(m, IdempotentMethod.class));
        annotated.forEach((method, annotation) -> policies.computeIfAbsent(new MethodKey(type, method),
                k -> MethodPolicy.of(type, method, annotation, properties.getObject(), placeholders)));
        return annotated.isEmpty() ? bean : super.postProcessAfterInitialization(bean, beanName);
    }

    /** Derives every method's engine now, so a missing {@code Idem} bean or a bad combination fails startup. */
    @Override
    public void afterSingletonsInstantiated() {
        policies.values().forEach(policy -> policy.engine(this::idem));
    }

    /** The policy of the method an invocation runs, or null if it carries no annotation. */
    MethodPolicy policyOf(MethodInvocation invocation) {
        Object target = invocation.getThis();
        Class<?> type = ClassUtils.getUserClass(target == null ? invocation.getMethod().getDeclaringClass() : AopUtils.getTargetClass(target));
        Method method = BridgeMethodResolver.findBridgedMethod(AopUtils.getMostSpecificMethod(invocation.getMethod(), type));
        return policies.computeIfAbsent(new MethodKey(type, method), k -> {
            IdempotentMethod annotation = AnnotatedElementUtils.findMergedAnnotation(method, IdempotentMethod.class);
            return annotation == null ? null : MethodPolicy.of(type, method, annotation, properties.getObject(), placeholders);
        });
    }

    Idem idem() {
        return idem.getIfAvailable();
    }

    /** The application's {@code JsonMapper} (Spring Boot's), else Jackson's shared default. */
    JsonMapper jsonMapper() {
        JsonMapper mapper = jsonMapper;
        if (mapper == null) {
            mapper = jsonMappers.getIfAvailable(JsonMapper::shared);
            jsonMapper = mapper;
        }
        return mapper;
    }
}
