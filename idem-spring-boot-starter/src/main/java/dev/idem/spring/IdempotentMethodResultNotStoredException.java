package dev.idem.spring;

import dev.idem.IdemException;

/**
 * An {@link IdempotentMethod} ran, but its return value could not be stored: encoding it as JSON
 * failed (a cyclic object graph, a getter that throws), its JSON was over the engine's
 * {@code maxResponseBytes} ({@code idem.max-response-bytes}), or it did not read back as the
 * method's return type. The method's effects happened, so the key is not given back: the record
 * keeps this outcome for its retention, every call with the key (the first one too) gets this
 * exception, and the method never runs again for it. Retrying is therefore pointless; change the
 * return value so it round-trips through JSON within the cap.
 *
 * <p>The message names the method and the reason, never the value or the key.
 */
public final class IdempotentMethodResultNotStoredException extends IdemException {
    private static final long serialVersionUID = 1L;

    IdempotentMethodResultNotStoredException(String where, String reason) {
        super(where + " ran, but its return value was not stored: " + reason + "; the key keeps this outcome"
                + " and the method does not run again for it");
    }
}
