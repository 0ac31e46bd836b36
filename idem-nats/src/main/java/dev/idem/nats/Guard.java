package dev.idem.nats;

/** Runs listener callbacks so that a throwing listener changes nothing but a log line. */
final class Guard {
    private static final System.Logger LOG = System.getLogger("dev.idem.nats");

    private Guard() {
    }

    static void run(Runnable callback) {
        try {
            callback.run();
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "a listener threw; ignored", e);
        }
    }
}
