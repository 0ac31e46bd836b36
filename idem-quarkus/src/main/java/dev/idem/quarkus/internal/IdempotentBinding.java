package dev.idem.quarkus.internal;

import dev.idem.jakarta.rest.IdempotencyFeature;
import io.quarkus.arc.Arc;
import jakarta.ws.rs.container.DynamicFeature;
import jakarta.ws.rs.container.ResourceInfo;
import jakarta.ws.rs.core.FeatureContext;

/**
 * Binds idem-jakarta-rest's filters (the ones Jersey and RESTEasy run) to each {@code @Idempotent}
 * resource method. Quarkus REST takes dynamic features from its build-time registry only (one that a
 * {@code Feature} registers is ignored) and runs them at static init, before the datasource and the
 * runtime configuration exist: so the filters take the {@link IdempotencyFeature} bean at their first
 * request.
 */
public class IdempotentBinding implements DynamicFeature {
    @Override
    public void configure(ResourceInfo resource, FeatureContext context) {
        IdempotencyFeature.bindDeferred(resource, context, () -> Arc.container().instance(IdempotencyFeature.class).get());
    }
}
