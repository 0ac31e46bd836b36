package dev.idem.spring.internal.listener;

import dev.idem.inbox.Inbox;
import dev.idem.spring.IdempotentListener;
import dev.idem.spring.internal.SpringTransactionalRunners;
import java.lang.reflect.Method;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import org.springframework.aop.framework.autoproxy.AbstractBeanFactoryAwareAdvisingPostProcessor;
import org.springframework.aop.support.DefaultPointcutAdvisor;
import org.springframework.aop.support.StaticMethodMatcherPointcut;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.BeansException;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.annotation.MergedAnnotations;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;
import org.springframework.util.ReflectionUtils;
import org.springframework.util.function.SingletonSupplier;

/**
 * Finds the {@link IdempotentListener} methods of each bean, checks them (a bad setting fails startup
 * naming the method), and proxies the bean with {@link IdempotentListenerInterceptor} around them.
 * It runs before the brokers' listener annotation post-processors, which then register the proxy's
 * method, so every delivery passes through the advice. The inbox and the transaction manager are
 * looked up once all singletons exist, and their absence fails startup too; a {@link ListenerTracing}
 * and a {@link ListenerMeters} bean, if there are, at the first delivery.
 */
public final class IdempotentListenerPostProcessor extends AbstractBeanFactoryAwareAdvisingPostProcessor
        implements SmartInitializingSingleton {
    private final transient List<ListenerBroker> brokers;
    private final transient Map<Method, ListenerMethod> methods = new ConcurrentHashMap<>();
    private transient ListableBeanFactory beans;
    private final transient SingletonSupplier<Inbox> inbox;
    private final transient SingletonSupplier<TransactionTemplate> transactions;

    public IdempotentListenerPostProcessor(List<ListenerBroker> brokers, ObjectProvider<Inbox> inboxes,
                                           ObjectProvider<PlatformTransactionManager> managers,
                                           ObjectProvider<ListenerTracing> tracing, ObjectProvider<ListenerMeters> meters) {
        this.brokers = List.copyOf(brokers);
        this.inbox = SingletonSupplier.of(() -> inboxes.getIfAvailable(() -> {
            throw new IllegalStateException("@IdempotentListener methods need an Inbox bean (idem-inbox) or a single DataSource"
                    + " to build one on");
        }));
        this.transactions = SingletonSupplier.of(() -> new SpringTransactionalRunners(managers)
                .template(inbox.get().dataSource(), "@IdempotentListener", "the inbox's"));
        Supplier<Inbox> lazyInbox = inbox;
        this.advisor = new DefaultPointcutAdvisor(new StaticMethodMatcherPointcut() {
            @Override
            public boolean matches(Method method, Class<?> targetClass) {
                return methods.containsKey(method) || methods.containsKey(AopUtils.getMostSpecificMethod(method, targetClass));
            }
        }, new IdempotentListenerInterceptor(methods, lazyInbox, transactions,
                SingletonSupplier.of(() -> tracing.getIfAvailable(() -> ListenerTracing.NONE)),
                SingletonSupplier.of(() -> meters.getIfAvailable(() -> ListenerMeters.NONE))));
        setBeforeExistingAdvisors(true);
        setProxyTargetClass(true);
        // Before the listener annotation post-processors (lowest precedence), so they see the proxy.
        setOrder(Ordered.LOWEST_PRECEDENCE - 100);
    }

    @Override
    public void setBeanFactory(BeanFactory beanFactory) {
        super.setBeanFactory(beanFactory);
        this.beans = (ListableBeanFactory) beanFactory;
    }

    @Override
    public Object postProcessAfterInitialization(Object bean, String beanName) throws BeansException {
        Class<?> type = AopUtils.getTargetClass(bean);
        ReflectionUtils.doWithMethods(type, method -> describe(method, beanName),
                method -> AnnotatedElementUtils.hasAnnotation(method, IdempotentListener.class));
        return super.postProcessAfterInitialization(bean, beanName);
    }

    private void describe(Method method, String beanName) {
        IdempotentListener settings = AnnotatedElementUtils.findMergedAnnotation(method, IdempotentListener.class);
        String where = method.getDeclaringClass().getName() + "#" + method.getName();
        ListenerBroker broker = brokers.stream().filter(b -> b.listens(method)).findFirst().orElseThrow(() -> noBroker(method, where));
        methods.put(method, ListenerMethod.of(method, beanName, settings, broker));
    }

    /** Why no broker takes the method: idem-kafka missing beside a @KafkaListener, else no listener annotation. */
    private static IllegalStateException noBroker(Method method, String where) {
        // By name: spring-kafka is on the class path here, but this class must load without it.
        if (MergedAnnotations.from(method, MergedAnnotations.SearchStrategy.TYPE_HIERARCHY)
                .isPresent("org.springframework.kafka.annotation.KafkaListener")) {
            return new IllegalStateException("@IdempotentListener on " + where + " is a @KafkaListener, and needs"
                    + " dev.idem:idem-kafka on the class path (beside spring-kafka); add that dependency");
        }
        return new IllegalStateException("@IdempotentListener on " + where + " needs a @KafkaListener or @RabbitListener on the"
                + " same method (with spring-kafka or spring-rabbit on the class path)");
    }

    /**
     * Fails startup now, not at the first message, if there is no inbox or no transaction manager for
     * it, or a listener's container is set up in a way that breaks the guarantee. The containers start
     * later, with the context's lifecycle.
     */
    @Override
    public void afterSingletonsInstantiated() {
        if (!methods.isEmpty()) {
            transactions.get();
        }
        for (ListenerMethod method : methods.values()) {
            method.checkContainer(beans, inbox.get().maxAttempts());
        }
    }

    /** The described listener methods, for tests and diagnostics. */
    public Map<Method, ListenerMethod> methods() {
        return Map.copyOf(methods);
    }
}
