package dev.idem.http;

import dev.idem.IdemException;

/**
 * A request body that does not parse as its content type requires, answered 400
 * ({@code urn:idem:problem:malformed-json}) before anything runs or is stored. The message says where
 * parsing failed, never what the body contains; the filters use it as the problem's {@code detail}.
 */
public final class MalformedBodyException extends IdemException {
    private static final long serialVersionUID = 1L;

    public MalformedBodyException(String message) {
        super(message, true);
    }
}
