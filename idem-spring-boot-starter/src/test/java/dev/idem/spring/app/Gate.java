package dev.idem.spring.app;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Holds handlers inside their run until the test releases them, so a test can make requests overlap
 * without sleeping. Unarmed, it lets every handler through.
 */
public final class Gate {
    private static final long TIMEOUT_SECONDS = 60;

    private volatile CountDownLatch entered;
    private volatile CountDownLatch released;

    /** From now on, handlers passing the gate wait for {@link #release()}. */
    public synchronized void arm() {
        entered = new CountDownLatch(1);
        released = new CountDownLatch(1);
    }

    /** Called by handlers: signals entry and waits for the release when armed. */
    public void pass() throws InterruptedException {
        CountDownLatch in = entered;
        CountDownLatch out = released;
        if (in == null) {
            return;
        }
        in.countDown();
        if (!out.await(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
            throw new IllegalStateException("the test never released the gate");
        }
    }

    /** Waits until a handler is inside the gate. */
    public void awaitEntered() throws InterruptedException {
        if (!entered.await(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
            throw new AssertionError("no handler entered the gate within " + TIMEOUT_SECONDS + " s");
        }
    }

    /** Lets the waiting handler (and all later ones) through, and disarms the gate. */
    public synchronized void release() {
        CountDownLatch out = released;
        entered = null;
        released = null;
        if (out != null) {
            out.countDown();
        }
    }
}
