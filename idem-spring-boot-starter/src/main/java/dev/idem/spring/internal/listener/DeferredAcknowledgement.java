package dev.idem.spring.internal.listener;

import java.util.List;

/**
 * A manual acknowledgement handed to a listener method in place of the container's: what the method
 * does with it is recorded and done after the transaction commits, and dropped if it rolls back.
 */
public interface DeferredAcknowledgement {

    /** The object the method receives in place of the container's. */
    Object argument();

    /**
     * Tells the wrapper which of the delivery's messages the method got (a batch's new ones), so an
     * index the method acknowledges maps back to the container's list.
     */
    void passed(List<Integer> originalIndexes);

    /** Does what the method asked for, after the commit; nothing if it asked for nothing. */
    void replay();

    /** Forgets what the method asked for: its transaction rolled back. */
    void discard();

    /** Acknowledges the whole delivery: its messages were duplicates, or are quarantined. */
    void settle();
}
