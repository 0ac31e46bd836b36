package dev.idem.jdbc.support;

import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Table names: the defaults the SQL files are written with, the check for configured ones, and the
 * renaming of a statement from the defaults to the configured names ({@link SqlStatements} renames
 * every statement it loads, {@link Migrator} every migration it runs).
 */
public final class Tables {
    /** The key store's records. */
    public static final String DEFAULT_RECORD_TABLE = "idem_record";
    /** The inbox's processed message ids. */
    public static final String DEFAULT_INBOX_TABLE = "idem_inbox";
    /** The inbox's quarantined messages. */
    public static final String DEFAULT_QUARANTINE_TABLE = "idem_quarantine";
    /** The outbox's events. */
    public static final String DEFAULT_OUTBOX_TABLE = "idem_outbox";
    /** The windowed totals. */
    public static final String DEFAULT_WINDOW_TOTAL_TABLE = "idem_window_total";

    /** Every default name; none is a prefix of another, so derived names ({@code idem_inbox_expires_at_idx}) follow their table. */
    private static final Pattern DEFAULTS = Pattern.compile(
            DEFAULT_RECORD_TABLE + "|" + DEFAULT_INBOX_TABLE + "|" + DEFAULT_QUARANTINE_TABLE + "|" + DEFAULT_OUTBOX_TABLE
            + "|" + DEFAULT_WINDOW_TOTAL_TABLE);
    private static final Pattern IDENTIFIER = Pattern.compile("[a-z_][a-z0-9_]{0,47}");

    private Tables() {
    }

    /**
     * Lower-case SQL identifiers only: they are spliced into SQL text. At most 48 characters, so that
     * derived names (suffixes of up to 15 characters) stay within PostgreSQL's 63.
     */
    public static String checkName(String name) {
        if (name == null || !IDENTIFIER.matcher(name).matches()) {
            throw new IllegalArgumentException("table name must match [a-z_][a-z0-9_]{0,47}, was '" + name + "'");
        }
        return name;
    }

    /**
     * Replaces each default table name in {@code sql}, also as the prefix of a derived name, by the
     * configured one, in one pass (a configured name is never renamed again).
     *
     * @param names default name to configured name; defaults missing from the map stay as they are. A key
     *              that is not one of idem-jdbc's defaults (another module's table, e.g. idem-kafka's
     *              {@code idem_kafka_offset}) is renamed as well; it must not be a prefix of another name.
     */
    public static String rename(String sql, Map<String, String> names) {
        Pattern defaults = DEFAULTS;
        for (String name : names.keySet()) {
            if (!DEFAULTS.matcher(name).matches()) {
                defaults = Pattern.compile(defaults.pattern() + "|" + Pattern.quote(name));
            }
        }
        Matcher m = defaults.matcher(sql);
        StringBuilder out = new StringBuilder(sql.length() + 16);
        while (m.find()) {
            m.appendReplacement(out, Matcher.quoteReplacement(names.getOrDefault(m.group(), m.group())));
        }
        m.appendTail(out);
        return out.toString();
    }
}
