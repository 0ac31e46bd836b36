package dev.idem.jakarta.rest;

import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.ext.ExceptionMapper;

/** An application's own exception and its mapper: the resource's refusal becomes the status it names. */
final class Declined extends RuntimeException {
    private static final long serialVersionUID = 1L;
    final int status;

    Declined(int status) {
        super("declined with " + status + " (test)");
        this.status = status;
    }

    /** Maps {@link Declined} to its status with a JSON body. */
    static final class Mapper implements ExceptionMapper<Declined> {
        @Override
        public Response toResponse(Declined declined) {
            return Response.status(declined.status).type("application/json").entity("{\"declined\":" + declined.status + "}").build();
        }
    }
}
