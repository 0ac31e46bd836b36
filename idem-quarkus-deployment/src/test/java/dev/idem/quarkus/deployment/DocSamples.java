package dev.idem.quarkus.deployment;

import dev.idem.jakarta.rest.Idempotent;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.core.Response;

/** The code of docs/quarkus.md, compiled here (idem-docs does not take the Quarkus BOM); SamplesMatchTextTest compares it with the page. */
final class DocSamples {
    private DocSamples() {
    }

    // sample: quarkus-resource
    @Path("/orders")
    public static class OrdersResource {
        @POST
        @Idempotent                                   // keyRequired = true: no key, 400 key-missing
        @Consumes("application/json")
        public Response create(String order) {        // a worker thread: the store's calls may block
            return Response.status(201).entity("{\"id\":\"o-1\"}").type("application/json").build();
        }
    }
    // end sample
}
