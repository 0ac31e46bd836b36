package dev.idem.jdbc.support;

import java.sql.SQLException;

/**
 * What idem lets out of a failure's text: a driver's message without the details that may quote a
 * key or a message id ({@link #redacted}), and a failure's message cut to fit a column
 * ({@link #truncate}, {@link #MAX_ERROR_MESSAGE}: the inbox's quarantine and the outbox's last error).
 * Every JDBC component reports driver failures through {@link StoreCalls}, which redacts them here.
 */
public final class FailureText {
    /** The most characters of a failure's message kept in a row (the inbox's quarantine, the outbox's last error). */
    public static final int MAX_ERROR_MESSAGE = 2000;

    private FailureText() {
    }

    /**
     * The driver's message cut to its first line, with the SQLState: drivers append details
     * (PostgreSQL: "Detail: Key (…)=(…)") that may quote a key or a message id.
     */
    public static SQLException redacted(SQLException e) {
        String message = String.valueOf(e.getMessage());
        int newline = message.indexOf('\n');
        String first = newline < 0 ? message : message.substring(0, newline);
        return new SQLException(e.getSQLState() == null ? first : first + " [SQLState " + e.getSQLState() + "]", e.getSQLState(), e);
    }

    /** At most {@code max} characters of {@code text}, never cutting a surrogate pair; null stays null. */
    public static String truncate(String text, int max) {
        if (text == null || text.length() <= max) {
            return text;
        }
        int end = Character.isHighSurrogate(text.charAt(max - 1)) ? max - 1 : max;
        return text.substring(0, end);
    }
}
