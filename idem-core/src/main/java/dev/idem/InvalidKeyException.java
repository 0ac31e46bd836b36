package dev.idem;

/**
 * An idempotency key, scope or other identifier did not meet its format. The message says which
 * rule was broken and where, but never repeats the rejected value: keys are credentials of a sort
 * and must not end up in logs.
 */
public final class InvalidKeyException extends IdemException {
    private static final long serialVersionUID = 1L;

    private InvalidKeyException(String message) {
        super(message);
    }

    static InvalidKeyException of(String what, String rule) {
        return new InvalidKeyException(what + " is invalid: " + rule);
    }
}
