package dev.idem.jdbc.internal;

import java.util.regex.Pattern;

/** Table names: the defaults the SQL files are written with, and the check for configured ones. */
public final class Tables {
    public static final String DEFAULT_RECORD_TABLE = "idem_record";
    private static final Pattern IDENTIFIER = Pattern.compile("[a-z_][a-z0-9_]{0,47}");

    private Tables() {
    }

    /** Lower-case SQL identifiers only: they are spliced into SQL text. */
    public static String checkName(String name) {
        if (name == null || !IDENTIFIER.matcher(name).matches()) {
            throw new IllegalArgumentException("table name must match [a-z_][a-z0-9_]{0,47}, was '" + name + "'");
        }
        return name;
    }
}
