package dev.idem.spring;

import dev.idem.Idem;
import dev.idem.servlet.IdempotencyFilter;
import dev.idem.servlet.RequestFingerprinter;
import dev.idem.servlet.RoutePolicyResolver;
import dev.idem.servlet.ScopeResolver;
import dev.idem.spring.internal.AnonymousScopeWarning;
import dev.idem.spring.internal.CompletableRoutes;
import dev.idem.spring.internal.CompleterLifecycle;
import dev.idem.spring.internal.DispatcherServletOnStartup;
import dev.idem.spring.internal.EndpointPolicies;
import dev.idem.spring.internal.HandlerMappingRoutePolicyResolver;
import dev.idem.spring.internal.HttpFilterSettings;
import dev.idem.spring.internal.IdemFailurePassThrough;
import dev.idem.spring.internal.SpringTransactionalRunners;
import dev.idem.spring.internal.TransactionalRunners;
import jakarta.servlet.DispatcherType;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.jdbc.datasource.DataSourceUtils;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.web.servlet.DispatcherServlet;

/**
 * The {@code Idempotency-Key} filter for a Spring MVC application: registered as a
 * {@link FilterRegistrationBean} on {@code /*} for the {@code REQUEST} dispatcher at
 * {@code idem.filter.order} (-90: after Spring Security's chain, before the rest), covering the
 * handler methods annotated {@link Idempotent} (or all, with {@code idem.default-policy=all}), with
 * the handler's URL pattern as the scope's route. An {@code @Idempotent(transactional = true)}
 * endpoint runs in a transaction of the application's {@code PlatformTransactionManager} of the
 * store's {@code DataSource} (spring-jdbc needed; checked at startup).
 *
 * <p>Each part backs off for an application bean: {@link RoutePolicyResolver}, {@link ScopeResolver},
 * {@link RequestFingerprinter}, and an {@link IdempotencyFilter} or
 * {@code FilterRegistrationBean<IdempotencyFilter>}.
 */
@AutoConfiguration(after = IdemAutoConfiguration.class)
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@ConditionalOnClass({IdempotencyFilter.class, DispatcherServlet.class, FilterRegistrationBean.class})
@ConditionalOnBooleanProperty(name = "idem.enabled", matchIfMissing = true)
@ConditionalOnBean({Idem.class, IdemProperties.class})
public class IdemWebAutoConfiguration {

    /** {@code @Idempotent} on handler methods, found through Spring MVC's handler mappings. */
    @Bean
    @ConditionalOnMissingBean
    RoutePolicyResolver idemRoutePolicyResolver(Idem idem, IdemProperties properties, Environment environment,
                                                ObjectProvider<TransactionalRunners> transactionalRunners,
                                                CompletableRoutes completableRoutes) {
        return new HandlerMappingRoutePolicyResolver(new EndpointPolicies(idem, properties, environment,
                transactionalRunners.getIfAvailable(TransactionalRunners::unavailable), completableRoutes));
    }

    /** The {@code @Idempotent(completable = true)} handlers, their operation names and the registry that runs them. */
    @Bean
    CompletableRoutes idemCompletableRoutes(Idem idem) {
        return new CompletableRoutes(idem);
    }

    /**
     * The completer of the completable routes ({@code idem.completer.*}), started and stopped with the
     * context, on the engine the filter runs routes on.
     */
    @Bean
    CompleterLifecycle idemCompleter(Idem idem, IdemProperties properties, CompletableRoutes completableRoutes) {
        return new CompleterLifecycle(EndpointPolicies.webEngine(idem, properties), properties.getCompleter(), completableRoutes);
    }

    /** The DispatcherServlet loaded on startup when a route is completable, so that the completer can dispatch to it. */
    @Bean
    static DispatcherServletOnStartup idemDispatcherServletOnStartup(Environment environment) {
        return new DispatcherServletOnStartup(environment);
    }

    /**
     * idem's store and lease failures pass every {@code @ExceptionHandler} of the application on to the
     * filter, which answers them 503 or 409 with {@code Retry-After} instead of a catch-all's 500.
     */
    @Bean
    IdemFailurePassThrough idemFailurePassThrough() {
        return new IdemFailurePassThrough();
    }

    /**
     * {@code @Idempotent(transactional = true)}: Spring's transaction of the store's DataSource, when
     * spring-jdbc is there (else such an endpoint fails startup saying so).
     */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass({PlatformTransactionManager.class, DataSourceUtils.class})
    static class Transactions {

        @Bean
        @ConditionalOnMissingBean
        TransactionalRunners idemTransactionalRunners(ObjectProvider<PlatformTransactionManager> managers) {
            return new SpringTransactionalRunners(managers);
        }
    }

    /** Principal ({@code idem.scope.credential-header}, else the user principal) + method + handler URL pattern. */
    @Bean
    @ConditionalOnMissingBean
    public ScopeResolver idemScopeResolver(IdemProperties properties) {
        return new HttpFilterSettings(properties).credentialHeader()
                .map(header -> ScopeResolver.credentialHeader(header, IdemRoutes::route))
                .orElseGet(() -> ScopeResolver.userPrincipal(IdemRoutes::route));
    }

    /** A WARN at start naming the covered routes whose callers would all share the anonymous scope. */
    @Bean
    public AnonymousScopeWarning idemAnonymousScopeWarning(IdemProperties properties) {
        return new AnonymousScopeWarning(properties);
    }

    @Bean
    @ConditionalOnMissingBean
    public RequestFingerprinter idemRequestFingerprinter() {
        return new RequestFingerprinter();
    }

    /**
     * The filter, with the request body cap of {@code idem.max-request-bytes} and the engine's response
     * cap (the starter's {@link Idem} takes {@code idem.max-response-bytes}; an application's own keeps its own),
     * the storage policy of {@code idem.not-stored-statuses} and the {@code Retry-After} of
     * {@code idem.failure-retry-after}.
     *
     * @throws InvalidConfigurationPropertyValueException if {@code idem.max-response-bytes} exceeds what
     *         the {@link Idem} bean stores (an application's own {@code Idem} with a smaller limit)
     */
    @Bean
    @ConditionalOnMissingBean(value = IdempotencyFilter.class, parameterizedContainer = FilterRegistrationBean.class)
    public FilterRegistrationBean<IdempotencyFilter> idempotencyFilterRegistration(
            Idem idem, IdemProperties properties, RoutePolicyResolver routePolicies, ScopeResolver scopes,
            RequestFingerprinter fingerprinter) {
        HttpFilterSettings settings = new HttpFilterSettings(properties).requireResponseCapWithin(idem);
        IdempotencyFilter filter = IdempotencyFilter.builder(idem)
                .methods(settings.methods(routePolicies instanceof HandlerMappingRoutePolicyResolver).toArray(String[]::new))
                .headerName(settings.headerName())
                .routePolicyResolver(routePolicies)
                .scopeResolver(scopes)
                .fingerprinter(fingerprinter)
                .maxRequestBytes(settings.maxRequestBytes())
                .storagePolicy(properties.storagePolicy())
                .failureRetryAfter(settings.failureRetryAfter())
                .build();
        FilterRegistrationBean<IdempotencyFilter> registration = new FilterRegistrationBean<>(filter);
        registration.setName("idempotencyFilter");
        registration.setOrder(settings.order());
        registration.setDispatcherTypes(DispatcherType.REQUEST);
        registration.addUrlPatterns("/*");
        return registration;
    }
}
