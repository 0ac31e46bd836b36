package dev.idem.spring;

import dev.idem.Idem;
import dev.idem.spring.internal.JacksonMethodJson;
import dev.idem.spring.internal.MethodJson;
import dev.idem.spring.internal.MethodPolicy;
import dev.idem.spring.internal.MethodTransactions;
import java.lang.reflect.Method;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.aopalliance.intercept.MethodInvocation;
import org.springframework.aop.framework.Advised;
import org.springframework.aop.interceptor.ExposeBeanNameAdvisors;
import org.springframework.aop.support.AopUtils;
import org.springframework.aop.support.DefaultPointcutAdvisor;
import org.springframework.aop.support.annotation.AnnotationMatchingPointcut;
import org.springframework.aop.framework.autoproxy.AbstractBeanFactoryAwareAdvisingPostProcessor;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.core.BridgeMethodResolver;
import org.springframework.core.MethodIntrospector;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.env.PropertyResolver;
import org.springframework.util.ClassUtils;

/**
 * Proxies the beans that have {@link IdempotentMethod} methods (Spring AOP, class-based proxies; an
 * existing proxy gets the advice added in front of its advisors, so it wraps the method's
 * transaction interceptor) and reads each such method's annotation as the bean is initialised, so a
 * bad one fails startup naming the method. Once all singletons exist, each method's engine is
 * derived from the application's {@link Idem} bean and its return type and transaction settings
 * are checked.
 *
 * <p>Policies are per bean and method: the default scope names the bean when several beans share a
 * class. The bean's name reaches the advice through Spring's {@link ExposeBeanNameAdvisors}.
 */
final class IdempotentMethodPostProcessor extends AbstractBeanFactoryAwareAdvisingPostProcessor
        implements SmartInitializingSingleton {
    private static final long serialVersionUID = 1L;

    private final transient ObjectProvider<Idem> idem;
    private final transient ObjectProvider<IdemProperties> properties;
    private final transient PropertyResolver placeholders;
    private final transient Map<MethodKey, MethodPolicy> policies = new ConcurrentHashMap<>();
    private transient volatile MethodJson json;
    private transient BeanFactory beanFactory;
    private transient ListableBeanFactory beans;
    private transient MethodTransactions transactions = MethodTransactions.NONE;

    /** @param beanName null for a call whose proxy does not expose one */
    private record MethodKey(String beanName, Class<?> type, Method method) {
    }

    IdempotentMethodPostProcessor(ObjectProvider<Idem> idem, ObjectProvider<IdemProperties> properties,
                                  PropertyResolver placeholders) {
        this.idem = idem;
        this.properties = properties;
        this.placeholders = placeholders;
        this.advisor = new DefaultPointcutAdvisor(new AnnotationMatchingPointcut(null, IdempotentMethod.class, true),
                new IdempotentMethodInterceptor(this));
        // As Spring Boot's default (spring.aop.proxy-target-class=true): beans stay injectable by class.
        setProxyTargetClass(true);
        // In front of an existing proxy's advisors (a @Transactional bean's): the record completes after the COMMIT.
        setBeforeExistingAdvisors(true);
    }

    @Override
    public void setBeanFactory(BeanFactory beanFactory) {
        super.setBeanFactory(beanFactory);
        this.beanFactory = beanFactory;
        this.beans = beanFactory instanceof ListableBeanFactory listable ? listable : null;
        this.transactions = MethodTransactions.of(beanFactory, beanFactory.getClass().getClassLoader());
    }

    @Override
    public Object postProcessAfterInitialization(Object bean, String beanName) {
        Class<?> type = ClassUtils.getUserClass(AopUtils.getTargetClass(bean));
        Map<Method, IdempotentMethod> annotated = MethodIntrospector.selectMethods(type,
                (MethodIntrospector.MetadataLookup<IdempotentMethod>) m -> AnnotatedElementUtils.findMergedAnnotation(m, IdempotentMethod.class));
        if (annotated.isEmpty()) {
            return bean;
        }
        String scopedName = severalBeansOf(type) ? beanName : null;
        annotated.forEach((method, annotation) -> policies.computeIfAbsent(new MethodKey(beanName, type, method),
                k -> MethodPolicy.of(type, scopedName, method, annotation, properties.getObject(), placeholders)));
        Object proxy = super.postProcessAfterInitialization(bean, beanName);
        if (beanName != null && proxy instanceof Advised advised && !advised.isFrozen()) {
            advised.addAdvisor(0, ExposeBeanNameAdvisors.createAdvisorWithoutIntroduction(beanName));
        }
        return proxy;
    }

    /** Whether more than one bean of the context is of exactly this class (subclasses have scopes of their own). */
    private boolean severalBeansOf(Class<?> type) {
        if (beans == null) {
            return false;
        }
        int count = 0;
        for (String name : beans.getBeanNamesForType(type, true, false)) {
            Class<?> found = beans.getType(name, false);
            if (found != null && ClassUtils.getUserClass(found) == type) {
                count++;
            }
        }
        return count > 1;
    }

    /**
     * Derives every method's engine and checks its return type and transaction settings now, so a
     * missing {@code Idem} bean or a bad combination fails startup; and refuses two bean methods with
     * one default scope (a bean whose class the context could not tell before creating it).
     */
    @Override
    public void afterSingletonsInstantiated() {
        Map<String, MethodPolicy> byDefaultScope = new HashMap<>();
        policies.values().forEach(policy -> {
            Idem engine = policy.engine(this::idem);
            policy.checkReturnType(json());
            transactions.check(policy, engine);
            MethodPolicy other = policy.hasDefaultScope() ? byDefaultScope.putIfAbsent(policy.scope().value(), policy) : null;
            if (other != null) {
                throw new IllegalStateException(policy.where() + ": two beans share the default scope '" + policy.scope()
                        + "'; give the method an explicit scope, or make each bean's class tell them apart");
            }
        });
    }

    /** The policy of the method an invocation runs, or null if it carries no annotation. */
    MethodPolicy policyOf(MethodInvocation invocation) {
        Object target = invocation.getThis();
        Class<?> type = ClassUtils.getUserClass(target == null ? invocation.getMethod().getDeclaringClass() : AopUtils.getTargetClass(target));
        Method method = BridgeMethodResolver.findBridgedMethod(AopUtils.getMostSpecificMethod(invocation.getMethod(), type));
        String beanName = beanNameOf(invocation);
        return policies.computeIfAbsent(new MethodKey(beanName, type, method), k -> {
            IdempotentMethod annotation = AnnotatedElementUtils.findMergedAnnotation(method, IdempotentMethod.class);
            return annotation == null ? null
                    : MethodPolicy.of(type, beanName != null && severalBeansOf(type) ? beanName : null, method, annotation,
                    properties.getObject(), placeholders);
        });
    }

    /** The name of the bean an invocation runs on, or null if its proxy does not expose it. */
    String beanNameOf(MethodInvocation invocation) {
        try {
            return ExposeBeanNameAdvisors.getBeanName(invocation);
        } catch (IllegalStateException e) {
            return null;
        }
    }

    Idem idem() {
        return idem.getIfAvailable();
    }

    MethodTransactions transactions() {
        return transactions;
    }

    /** JSON over the application's Jackson mapper (Spring Boot's), else Jackson's default one. */
    MethodJson json() {
        MethodJson current = json;
        if (current == null) {
            current = JacksonMethodJson.of(beanFactory);
            json = current;
        }
        return current;
    }
}
