package dev.idem;

/**
 * An operation returned a response larger than the engine's configured cap. It was not stored; the
 * failure policy treated it like an exception from the operation.
 */
public final class ResponseTooLargeException extends IdemException {
    private static final long serialVersionUID = 1L;

    private ResponseTooLargeException(String message) {
        super(message);
    }

    /** Made by the engine and by stores' transactional modes. */
    public static ResponseTooLargeException of(Scope scope, long size, long cap) {
        return new ResponseTooLargeException("response for scope '" + scope + "' is " + size
                + " bytes, over the cap of " + cap + " bytes; it was not stored");
    }
}
