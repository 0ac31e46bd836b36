package dev.idem.jdbc.brokenmigration;

/** Anchor of a test application's migration file with an error in its SQL. */
public final class Broken {
    private Broken() {
    }
}
