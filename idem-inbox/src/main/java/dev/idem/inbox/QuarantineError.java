package dev.idem.inbox;

/**
 * What the quarantine records of the failure that quarantined a message, beside its class name
 * ({@link Inbox.Builder#quarantineError}). The default is {@link #CLASS_NAME}: an exception's message
 * can quote the payload or the database (a card number in a parse error, a value in a constraint
 * violation), and the quarantine keeps it until an operator acts, long after logs rotate.
 */
public enum QuarantineError {
    /** The exception's class name alone; {@link QuarantinedMessage#errorMessage()} is empty. The default. */
    CLASS_NAME,
    /** The class name and the exception's message, truncated to 2,000 characters. */
    CLASS_AND_MESSAGE
}
