package dev.idem.jdbc.internal;

/** Runs a user's listener callback and logs what it throws: observability must not change outcomes. */
public final class Guard {
    private static final System.Logger LOG = System.getLogger("dev.idem.jdbc.listener");

    private Guard() {
    }

    public static void run(String event, Runnable call) {
        try {
            call.run();
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "idem listener failed on " + event + "; ignored", e);
        }
    }
}
