package dev.idem.docs;

import java.nio.file.Path;
import java.util.regex.Pattern;

/**
 * A link or image target as written in Markdown: a path (possibly empty) and a fragment (without
 * {@code #}, possibly absent), or an absolute URL.
 */
record Destination(String raw, String path, String fragment, boolean isAbsolute) {
    /** A URI scheme ({@code https:}, {@code mailto:}) or a protocol-relative {@code //host}. */
    private static final Pattern ABSOLUTE = Pattern.compile("^([a-zA-Z][a-zA-Z0-9+.-]*:|//).*");

    static Destination parse(String raw) {
        if (ABSOLUTE.matcher(raw).matches()) {
            return new Destination(raw, raw, null, true);
        }
        int hash = raw.indexOf('#');
        return hash < 0
                ? new Destination(raw, raw, null, false)
                : new Destination(raw, raw.substring(0, hash), raw.substring(hash + 1), false);
    }

    /** A path to another file of the repository (not an absolute URL, not a fragment of this page). */
    boolean isRelative() {
        return !isAbsolute && !path.isEmpty();
    }

    /** The repository-relative file this points to, from a page in {@code folder} (null: the top). */
    Path resolveFrom(Path folder) {
        return (folder == null ? Path.of(path) : folder.resolve(path)).normalize();
    }

    /** {@code target} with this destination's fragment, if it has one. */
    String withFragment(String target) {
        return fragment == null ? target : target + "#" + fragment;
    }
}
