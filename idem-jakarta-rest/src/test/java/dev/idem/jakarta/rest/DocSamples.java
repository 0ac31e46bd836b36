package dev.idem.jakarta.rest;

import dev.idem.Idem;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.core.Application;
import jakarta.ws.rs.core.Response;
import java.util.Set;
import org.glassfish.jersey.server.ResourceConfig;

/** The samples of docs/jakarta-rest.md, compiled here (the contract tests run the same registrations). */
final class DocSamples {
    private DocSamples() {
    }

    static IdempotencyFeature feature(Idem idem) {
        // sample: jakarta-rest-feature
        IdempotencyFeature feature = IdempotencyFeature.builder(idem)   // key header Idempotency-Key
                .maxRequestBytes(256 * 1024)                               // larger bodies: 413
                .scopeResolver(ScopeResolver.credentialHeader("X-Api-Key")) // default: the SecurityContext principal
                .build();
        // end sample
        return feature;
    }

    static ResourceConfig jersey(IdempotencyFeature feature) {
        // sample: jakarta-rest-jersey
        ResourceConfig config = new ResourceConfig()
                .register(feature)
                .register(OrdersResource.class);
        // end sample
        return config;
    }

    // sample: jakarta-rest-resteasy
    public static class OrdersApplication extends Application {
        private final IdempotencyFeature feature;

        public OrdersApplication(IdempotencyFeature feature) {
            this.feature = feature;
        }

        @Override
        public Set<Object> getSingletons() {
            return Set.of(feature, new OrdersResource());
        }
    }
    // end sample

    // sample: jakarta-rest-resource
    @Path("/orders")
    public static class OrdersResource {
        @POST
        @Idempotent                                   // keyRequired = true: no key, 400 key-missing
        @Consumes("application/json")
        public Response create(String order) {
            return Response.status(201).entity("{\"id\":\"o-1\"}").type("application/json").build();
        }
    }
    // end sample
}
