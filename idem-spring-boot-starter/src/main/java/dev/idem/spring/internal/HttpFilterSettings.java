package dev.idem.spring.internal;

import dev.idem.Idem;
import dev.idem.spring.IdemProperties;
import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;

/**
 * The {@code idem.*} settings of the {@code Idempotency-Key} filter, read in one place for both stacks —
 * the Servlet filter of a Spring MVC application and the {@code WebFilter} of a WebFlux one — so one
 * configuration gives both the same header, caps, methods, scope and order.
 */
public final class HttpFilterSettings {
    /** The methods an {@code @Idempotent} covers beside {@code idem.methods}: every unsafe one. */
    private static final List<String> ANNOTATED_METHODS = List.of("POST", "PUT", "PATCH", "DELETE");

    private final IdemProperties properties;

    public HttpFilterSettings(IdemProperties properties) {
        this.properties = Objects.requireNonNull(properties, "properties is null");
    }

    /**
     * Checks the response cap against the engine the filter runs on, before a filter is built.
     *
     * @throws InvalidConfigurationPropertyValueException if {@code idem.max-response-bytes} exceeds what
     *         {@code idem} stores (an application's own {@code Idem} with a smaller limit)
     */
    public HttpFilterSettings requireResponseCapWithin(Idem idem) {
        long responseCap = properties.getMaxResponseBytes().toBytes();
        if (responseCap > idem.maxResponseBytes()) {
            throw new InvalidConfigurationPropertyValueException("idem.max-response-bytes", properties.getMaxResponseBytes(),
                    "must not exceed the Idem bean's maxResponseBytes (" + idem.maxResponseBytes()
                            + " bytes), or responses between the two would fail instead of being stored without their body");
        }
        return this;
    }

    /** {@code idem.header-name}. */
    public String headerName() {
        return properties.getHeaderName();
    }

    /** {@code idem.max-request-bytes}. */
    public int maxRequestBytes() {
        return (int) properties.getMaxRequestBytes().toBytes();
    }

    /** {@code idem.failure-retry-after}. */
    public Duration failureRetryAfter() {
        return properties.getFailureRetryAfter();
    }

    /** {@code idem.filter.order}: after Spring Security's chain (-100) on either stack. */
    public int order() {
        return properties.getFilter().getOrder();
    }

    /** {@code idem.scope.credential-header}; empty for the authenticated principal. */
    public Optional<String> credentialHeader() {
        String header = properties.getScope().getCredentialHeader();
        return header == null || header.isEmpty() ? Optional.empty() : Optional.of(header);
    }

    /**
     * {@code idem.methods}, and with the starter's {@code @Idempotent} resolver also every method an
     * {@code @Idempotent} covers (POST, PUT, PATCH, DELETE): the resolver leaves unannotated handlers of
     * those to the default policy's {@code idem.methods}. An application's own resolver is asked for
     * {@code idem.methods} only.
     */
    public Set<String> methods(boolean annotationsDecide) {
        Set<String> methods = new LinkedHashSet<>(properties.getMethods());
        if (annotationsDecide) {
            methods.addAll(ANNOTATED_METHODS);
        }
        return methods;
    }
}
