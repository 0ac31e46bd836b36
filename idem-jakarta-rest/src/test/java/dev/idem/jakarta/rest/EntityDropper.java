package dev.idem.jakarta.rest;

import jakarta.annotation.Priority;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerResponseContext;
import jakarta.ws.rs.container.ContainerResponseFilter;

/**
 * An application's response filter that runs after idem's own would at {@link Priorities#USER}
 * (response filters run in descending priority) and, on requests that ask for it, drops the entity
 * and answers 202: what a later filter may do to a response idem has already seen.
 */
@Priority(Priorities.AUTHENTICATION)
public final class EntityDropper implements ContainerResponseFilter {
    static final String HEADER = "X-Test-Drop-Entity";

    @Override
    public void filter(ContainerRequestContext request, ContainerResponseContext response) {
        if (request.getHeaderString(HEADER) != null) {
            response.setEntity(null);
            response.setStatus(202);
        }
    }
}
