package dev.idem.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * docs/images' diagrams are what {@link Diagrams} draws, and a page shows each. With
 * {@code -Didem.docs.write=true} the test writes the files instead of failing.
 */
class DiagramsTest {
    static final String COMMAND = "mvn -pl idem-docs -am verify -Dtest=DiagramsTest -Didem.docs.write=true -Dsurefire.failIfNoSpecifiedTests=false";
    private static final Path IMAGES = Repository.root().resolve("docs/images");

    @Test
    @DisplayName("each diagram in docs/images is the SVG Diagrams draws today")
    void filesAreCurrent() throws Exception {
        List<String> stale = new ArrayList<>();
        for (Map.Entry<String, String> diagram : Diagrams.all().entrySet()) {
            Path file = IMAGES.resolve(diagram.getKey());
            boolean current = Files.isRegularFile(file) && Files.readString(file).equals(diagram.getValue());
            if (!current && Screenshots.writing()) {
                Files.createDirectories(IMAGES);
                Files.writeString(file, diagram.getValue());
            } else if (!current) {
                stale.add(diagram.getKey());
            }
        }
        assertThat(stale).as("diagrams out of date; regenerate them with:\n  " + COMMAND).isEmpty();
    }

    @Test
    @DisplayName("every diagram is shown by a page of docs/, with alt text")
    void everyDiagramIsShown() throws Exception {
        Pattern image = Pattern.compile("!\\[([^\\]]+)\\]\\(images/([^)]+\\.svg)\\)");
        List<String> shown = new ArrayList<>();
        try (var pages = Files.list(Repository.root().resolve("docs"))) {
            for (Path page : pages.filter(p -> p.toString().endsWith(".md")).toList()) {
                Matcher m = image.matcher(Files.readString(page));
                while (m.find()) {
                    shown.add(m.group(2));
                }
            }
        }
        assertThat(shown).containsAll(Diagrams.all().keySet());
    }

    @Test
    @DisplayName("a diagram is well-formed XML with a title, and every label is escaped")
    void diagramsAreWellFormed() throws Exception {
        var factory = javax.xml.parsers.DocumentBuilderFactory.newInstance();
        for (Map.Entry<String, String> diagram : Diagrams.all().entrySet()) {
            var document = factory.newDocumentBuilder().parse(new org.xml.sax.InputSource(new java.io.StringReader(diagram.getValue())));
            assertThat(document.getDocumentElement().getTagName()).as(diagram.getKey()).isEqualTo("svg");
            assertThat(document.getElementsByTagName("title").getLength()).as(diagram.getKey()).isEqualTo(1);
        }
    }
}
