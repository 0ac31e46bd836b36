package dev.idem.spi;

/**
 * How idem calls an application's listener: what the listener throws is logged (logger
 * {@code dev.idem.listener}, level WARNING) and dropped, because observability must not change an
 * outcome. The engine's listener, the inbox's, the consumers' and the outbox relay's are all called
 * through here; a store that reports events to a listener of its own calls it the same way.
 */
public final class ListenerCalls {
    private static final System.Logger LOG = System.getLogger("dev.idem.listener");

    private ListenerCalls() {
    }

    /**
     * Runs {@code call}; a {@link RuntimeException} from it is logged, naming {@code event}, and not
     * rethrown. An {@link Error} is not caught.
     *
     * @param event the listener method called, e.g. {@code "duplicate"}; named in the log line
     */
    public static void run(String event, Runnable call) {
        try {
            call.run();
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "idem listener failed on " + event + "; ignored", e);
        }
    }
}
