package dev.idem.docs;

import java.nio.file.Path;

/**
 * One page of the site: a Markdown file of the repository and the HTML file it becomes.
 *
 * @param source repository-relative path of the Markdown file, for example {@code docs/http.md}
 * @param output site-relative path of the HTML file, with {@code /} separators, for example {@code docs/http.html}
 * @param title  the text of the file's first level-1 heading
 */
public record Page(Path source, String output, String title) {

    /** Where the page lies in the site: the folder of {@link #output}, "" at the top. */
    String folder() {
        int slash = output.lastIndexOf('/');
        return slash < 0 ? "" : output.substring(0, slash + 1);
    }

    /** The relative URL from this page to {@code target} (a site-relative path). */
    String linkTo(String target) {
        return Path.of(folder()).relativize(Path.of(target)).toString().replace('\\', '/');
    }
}
