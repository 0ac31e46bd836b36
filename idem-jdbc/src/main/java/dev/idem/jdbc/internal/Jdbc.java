package dev.idem.jdbc.internal;

import java.sql.SQLException;

/** Small JDBC chores shared by the store, the inbox and the outbox. */
public final class Jdbc {
    /** The most characters of a failure's message kept in a row (the inbox's quarantine, the outbox's last error). */
    public static final int MAX_ERROR_MESSAGE = 2000;

    private Jdbc() {
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

    /**
     * Whether MariaDB refused a row for a duplicate key: vendor codes 1062 (ER_DUP_ENTRY) and 1586
     * (ER_DUP_ENTRY_WITH_KEY_NAME). Not the SQLState alone: 23000 also covers NOT NULL and foreign keys.
     */
    public static boolean isDuplicateKey(SQLException e) {
        return "23000".equals(e.getSQLState()) && (e.getErrorCode() == 1062 || e.getErrorCode() == 1586);
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
