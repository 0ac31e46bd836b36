package dev.idem.docs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.idem.jdbc.Dialect;
import dev.idem.jdbc.support.Migrator;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * docs/schema.md shows every migration file's DDL as the file holds it, and the Liquibase changelogs
 * list idem's whole sequence: the page and the changelogs cannot drift from the files.
 */
class SchemaPageTest {
    private static final Pattern BLOCK = Pattern.compile("<!-- ddl: ([a-z]+/V\\d+__\\w+\\.sql) -->\n```sql\n(.*?)\n```", Pattern.DOTALL);
    private static final Pattern INCLUDE = Pattern.compile("<include file=\"([a-z]+)/(V\\d+__\\w+\\.sql)\"");

    @Test
    @DisplayName("each dialect's file of each migration is shown once on docs/schema.md, equal to the file without its Liquibase lines")
    void everyFileIsShownAsItIs() throws Exception {
        String page = Files.readString(Repository.root().resolve("docs/schema.md"));
        List<String> shown = new ArrayList<>();
        Matcher m = BLOCK.matcher(page);
        while (m.find()) {
            shown.add(m.group(1));
            assertThat(m.group(2)).as(m.group(1)).isEqualTo(ddl(read(Migrator.IDEM_FOLDER + m.group(1))));
        }
        assertThat(shown).containsExactlyInAnyOrderElementsOf(everyFile());
    }

    @Test
    @DisplayName("every file is a Liquibase change set named after it, and each dialect's changelog includes the whole sequence in order")
    void changelogsListTheSequence() throws Exception {
        for (Dialect dialect : Dialect.values()) {
            String folder = dialect.name().toLowerCase(Locale.ROOT);
            String changelog = read(Migrator.IDEM_FOLDER + "changelog-" + folder + ".xml");
            List<String> included = new ArrayList<>();
            Matcher m = INCLUDE.matcher(changelog);
            while (m.find()) {
                assertThat(m.group(1)).isEqualTo(folder);
                included.add(m.group(2));
            }
            assertThat(included).as(folder).containsExactlyElementsOf(Migrator.MIGRATIONS.stream().map(SchemaPageTest::fileName).toList());
            for (Migrator.Migration migration : Migrator.MIGRATIONS) {
                String text = read(Migrator.idemFolder(dialect) + fileName(migration));
                assertThat(text).as(fileName(migration)).startsWith("-- liquibase formatted sql\n-- changeset idem:"
                        + fileName(migration).replace(".sql", "") + "\n");
            }
        }
    }

    private static List<String> everyFile() {
        List<String> files = new ArrayList<>();
        for (Dialect dialect : Dialect.values()) {
            for (Migrator.Migration migration : Migrator.MIGRATIONS) {
                files.add(dialect.name().toLowerCase(Locale.ROOT) + "/" + fileName(migration));
            }
        }
        return files;
    }

    private static String fileName(Migrator.Migration migration) {
        return "V" + migration.version() + "__" + migration.description() + ".sql";
    }

    /** The file's text as the page shows it: without the two lines that make it a Liquibase change set. */
    private static String ddl(String file) {
        return file.lines().filter(line -> !line.startsWith("-- liquibase formatted sql") && !line.startsWith("-- changeset "))
                .collect(Collectors.joining("\n")).strip();
    }

    private static String read(String resource) throws IOException {
        try (InputStream in = SchemaPageTest.class.getClassLoader().getResourceAsStream(resource)) {
            assertThat(in).as(resource + " on the class path").isNotNull();
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }
}
