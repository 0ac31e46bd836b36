package dev.idem.spring.app;

import java.util.concurrent.atomic.AtomicInteger;

/** A switch for the application's database: while it is down, no connection can be had. */
public final class Outage {
    private volatile boolean down;
    private final AtomicInteger blipRefusals = new AtomicInteger();

    public void begin() {
        down = true;
    }

    public void end() {
        down = false;
    }

    /** A blip: the next {@code refusals} connection attempts fail, then the database is back. */
    public void blip(int refusals) {
        blipRefusals.set(refusals);
    }

    public boolean down() {
        return down || blipRefusals.getAndUpdate(left -> Math.max(0, left - 1)) > 0;
    }
}
