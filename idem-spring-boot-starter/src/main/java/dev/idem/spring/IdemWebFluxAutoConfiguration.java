package dev.idem.spring;

import dev.idem.Idem;
import dev.idem.spring.internal.EndpointPolicies;
import dev.idem.spring.internal.HandlerMappingExchangePolicyResolver;
import dev.idem.spring.internal.HttpFilterSettings;
import dev.idem.webflux.ExchangePolicyResolver;
import dev.idem.webflux.ExchangeScopeResolver;
import dev.idem.webflux.IdempotencyWebFilter;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;
import org.springframework.web.reactive.DispatcherHandler;

/**
 * The {@code Idempotency-Key} filter for a Spring WebFlux application: idem-webflux's
 * {@link IdempotencyWebFilter}, from the same {@code idem.*} properties as the Servlet filter (header,
 * methods, request and response caps, not-stored statuses, {@code Retry-After}, scope, order), covering
 * the handler methods annotated {@link Idempotent} (or all, with {@code idem.default-policy=all}) by the
 * same rules, with the handler's URL pattern as the scope's route. The store's blocking calls run on
 * {@code Schedulers.boundedElastic()}, never on an event loop. Functional routes take
 * {@code IdempotentRouteFilter.of(filter)} with this filter.
 *
 * <p>Each part backs off for an application bean: {@link ExchangePolicyResolver},
 * {@link ExchangeScopeResolver} and the {@link IdempotencyWebFilter} itself.
 * {@code @Idempotent(transactional = true)} fails startup: a JDBC transaction is bound to one thread.
 */
@AutoConfiguration(after = IdemAutoConfiguration.class)
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.REACTIVE)
@ConditionalOnClass({IdempotencyWebFilter.class, DispatcherHandler.class})
@ConditionalOnBooleanProperty(name = "idem.enabled", matchIfMissing = true)
@ConditionalOnBean({Idem.class, IdemProperties.class})
public class IdemWebFluxAutoConfiguration {

    /** {@code @Idempotent} on handler methods, found through WebFlux's handler mappings. */
    @Bean
    @ConditionalOnMissingBean
    ExchangePolicyResolver idemExchangePolicyResolver(Idem idem, IdemProperties properties, Environment environment) {
        return new HandlerMappingExchangePolicyResolver(new EndpointPolicies(idem, properties, environment,
                HandlerMappingExchangePolicyResolver.noTransactions()));
    }

    /** Principal ({@code idem.scope.credential-header}, else the exchange's principal) + method + handler URL pattern. */
    @Bean
    @ConditionalOnMissingBean
    public ExchangeScopeResolver idemExchangeScopeResolver(IdemProperties properties) {
        return new HttpFilterSettings(properties).credentialHeader()
                .map(ExchangeScopeResolver::credentialHeader)
                .orElseGet(ExchangeScopeResolver::principal);
    }

    /**
     * The filter, on the application's engine with the storage policy of {@code idem.not-stored-statuses}
     * (an endpoint's {@code notStored} its own), at {@code idem.filter.order}.
     *
     * @throws InvalidConfigurationPropertyValueException if {@code idem.max-response-bytes} exceeds what
     *         the {@link Idem} bean stores
     */
    @Bean
    @ConditionalOnMissingBean
    public IdempotencyWebFilter idempotencyWebFilter(Idem idem, IdemProperties properties, ExchangePolicyResolver policies,
                                                     ExchangeScopeResolver scopes) {
        HttpFilterSettings settings = new HttpFilterSettings(properties).requireResponseCapWithin(idem);
        IdempotencyWebFilter.Builder filter = IdempotencyWebFilter.builder(idem.toBuilder().storagePolicy(properties.storagePolicy()).build())
                .headerName(settings.headerName())
                .policyResolver(policies)
                .scopeResolver(scopes)
                .maxRequestBytes(settings.maxRequestBytes())
                .failureRetryAfter(settings.failureRetryAfter())
                .order(settings.order());
        for (String method : settings.methods(policies instanceof HandlerMappingExchangePolicyResolver)) {
            filter.route(method, "/**");
        }
        return filter.build();
    }
}
