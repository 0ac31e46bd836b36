package dev.idem;

/**
 * An operation returned a response larger than a configured cap.
 *
 * @deprecated The engine no longer throws it: a response over {@link Idem#maxResponseBytes()} is
 *             stored with its body left out (see {@link Idem#storable}), because the operation's effect
 *             already happened and giving the key back would run it again.
 */
@Deprecated
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
