package dev.idem.spring.internal;

import org.springframework.beans.BeansException;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryAware;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.web.servlet.ServletRegistrationBean;
import org.springframework.core.env.Environment;
import org.springframework.web.servlet.DispatcherServlet;

/**
 * Loads the {@code DispatcherServlet} on startup when a handler is {@code @Idempotent(completable = true)}
 * (and {@code idem.completer.enabled} is not false): the completer dispatches stored requests to it
 * in-process, which needs it initialised by the container, while Spring Boot by default initialises
 * it on the first request ({@code spring.mvc.servlet.load-on-startup=-1}), which may never come to a
 * restarted instance.
 */
public final class DispatcherServletOnStartup implements BeanPostProcessor, BeanFactoryAware {
    private final Environment environment;
    private ConfigurableListableBeanFactory beanFactory;

    public DispatcherServletOnStartup(Environment environment) {
        this.environment = environment;
    }

    @Override
    public void setBeanFactory(BeanFactory beanFactory) {
        this.beanFactory = beanFactory instanceof ConfigurableListableBeanFactory listable ? listable : null;
    }

    @Override
    public Object postProcessBeforeInitialization(Object bean, String beanName) throws BeansException {
        if (bean instanceof ServletRegistrationBean<?> registration && registration.getServlet() instanceof DispatcherServlet
                && beanFactory != null && environment.getProperty("idem.completer.enabled", Boolean.class, true)
                && CompletableRoutes.anyDeclared(beanFactory)) {
            registration.setLoadOnStartup(1);
        }
        return bean;
    }
}
