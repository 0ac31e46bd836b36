package dev.idem.jakarta.rest.internal;

import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.container.ContainerResponseContext;
import jakarta.ws.rs.container.ContainerResponseFilter;
import jakarta.ws.rs.ext.WriterInterceptor;
import jakarta.ws.rs.ext.WriterInterceptorContext;
import java.io.IOException;
import java.util.function.Supplier;

/**
 * An {@link IdempotencyFilter} made at the first request of its method: the runtime binds filters before
 * the engine they need can be built (Quarkus REST binds at static init; the datasource comes at runtime).
 */
public final class DeferredFilter implements ContainerRequestFilter, ContainerResponseFilter, WriterInterceptor {
    private final Supplier<IdempotencyFilter> factory;
    private volatile IdempotencyFilter filter;
    private volatile ContainerResponseFilter responseFilter;

    public DeferredFilter(Supplier<IdempotencyFilter> factory) {
        this.factory = factory;
    }

    private IdempotencyFilter filter() {
        IdempotencyFilter made = filter;
        if (made == null) {
            synchronized (this) {
                made = filter;
                if (made == null) {
                    made = factory.get();
                    filter = made;
                }
            }
        }
        return made;
    }

    @Override
    public void filter(ContainerRequestContext request) throws IOException {
        filter().filter(request);
    }

    /**
     * The response part, bound with the method here (the runtime registers no application-wide
     * response filter of the feature's), so it runs at the method's priority rather than after every
     * filter of the application's.
     */
    @Override
    public void filter(ContainerRequestContext request, ContainerResponseContext response) throws IOException {
        ContainerResponseFilter made = responseFilter;
        if (made == null) {
            made = IdempotencyFilter.responseFilter(filter().settings());
            responseFilter = made;
        }
        made.filter(request, response);
    }

    @Override
    public void aroundWriteTo(WriterInterceptorContext context) throws IOException {
        filter().aroundWriteTo(context);
    }
}
