package dev.idem.jdbc.migrationfixture;

/** Anchor of a test application's migration files (the folders beside it in the test resources). */
public final class Widgets {
    private Widgets() {
    }
}
