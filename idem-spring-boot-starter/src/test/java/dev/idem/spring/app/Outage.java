package dev.idem.spring.app;

/** A switch for the application's database: while it is down, no connection can be had. */
public final class Outage {
    private volatile boolean down;

    public void begin() {
        down = true;
    }

    public void end() {
        down = false;
    }

    public boolean down() {
        return down;
    }
}
