package dev.idem.jakarta.rest.internal;

import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.ext.ExceptionMapper;

/**
 * The mapper of last resort (for {@code Throwable}: the application's more specific mappers win): a
 * covered request whose resource threw an exception nothing else maps would leave the runtime without
 * a response filter to run, so its execution is failed here — the key is given back and a retry runs
 * again. The answer is the runtime's default one: a {@link WebApplicationException}'s own response,
 * else 500 without a body.
 */
public final class UnhandledFailureMapper implements ExceptionMapper<Throwable> {
    private static final System.Logger LOG = System.getLogger(UnhandledFailureMapper.class.getName());

    @Override
    public Response toResponse(Throwable failure) {
        Exchange exchange = Exchange.CURRENT.get();
        if (exchange != null) {
            Exchange.CURRENT.remove();
            exchange.fail(failure);
        }
        if (failure instanceof WebApplicationException web && web.getResponse() != null) {
            return web.getResponse();
        }
        LOG.log(System.Logger.Level.ERROR, "unhandled exception of a resource; answered 500", failure);
        return Response.serverError().build();
    }
}
