package dev.idem.servlet.internal;

/**
 * Header names and values as the container will write them, so that what is stored is what the
 * first caller received and what a replay sends: Jetty 12 and Tomcat replace the characters a
 * header field cannot carry rather than refuse them.
 */
final class HeaderFields {
    private HeaderFields() {
    }

    /**
     * A header name as it can be sent and stored, or {@code null} for a missing or empty name (the
     * header is dropped: there is no field to send). Every character that is not an HTTP token
     * character becomes {@code .} — Jetty 12 does so for control characters, {@code :} and characters
     * beyond ISO-8859-1, and would send the others (space, separators, ISO-8859-1 letters) as an
     * invalid field line that clients refuse.
     */
    static String headerName(String name) {
        if (name == null || name.isEmpty()) {
            return null;
        }
        StringBuilder out = null;
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            if (!tchar(c)) {
                if (out == null) {
                    out = new StringBuilder(name.length()).append(name, 0, i);
                }
                out.append('.');
            } else if (out != null) {
                out.append(c);
            }
        }
        return out == null ? name : out.toString();
    }

    /**
     * A header value as the container writes it: control characters other than tab, DEL, and
     * characters beyond ISO-8859-1 (each UTF-16 unit, so a lone surrogate too) become a space, as
     * Jetty 12 and Tomcat write them; ISO-8859-1 letters stay (sent as one byte each).
     */
    static String headerValue(String value) {
        StringBuilder out = null;
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            boolean sendable = c == '\t' || (c >= 0x20 && c != 0x7F && c <= 0xFF);
            if (!sendable) {
                if (out == null) {
                    out = new StringBuilder(value.length()).append(value, 0, i);
                }
                out.append(' ');
            } else if (out != null) {
                out.append(c);
            }
        }
        return out == null ? value : out.toString();
    }

    private static boolean tchar(char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || "!#$%&'*+-.^_`|~".indexOf(c) >= 0;
    }
}
