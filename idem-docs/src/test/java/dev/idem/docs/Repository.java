package dev.idem.docs;

import java.nio.file.Files;
import java.nio.file.Path;

/** The repository whose README.md and docs/ the tests read: the build names it (idem-docs/pom.xml). */
final class Repository {
    static final String PROPERTY = "idem.repository.root";

    private Repository() {
    }

    static Path root() {
        String configured = System.getProperty(PROPERTY);
        if (configured == null || configured.isBlank()) {
            throw new IllegalStateException("the system property " + PROPERTY + " must name the repository's root (the build sets it)");
        }
        Path root = Path.of(configured).toAbsolutePath().normalize();
        if (!Files.isRegularFile(root.resolve("README.md"))) {
            throw new IllegalStateException(PROPERTY + " names " + root + ", which has no README.md");
        }
        return root;
    }
}
