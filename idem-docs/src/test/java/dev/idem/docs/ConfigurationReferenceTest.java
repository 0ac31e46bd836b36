package dev.idem.docs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.fail;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * docs/configuration.md's property and builder tables are what {@link ConfigurationReference} generates
 * from the code today. With {@code -Didem.docs.write=true} the test rewrites the page instead of failing.
 */
class ConfigurationReferenceTest {
    static final String WRITE = "idem.docs.write";
    static final String COMMAND = "mvn -pl idem-docs verify -Dtest=ConfigurationReferenceTest -Didem.docs.write=true";

    private static final Path ROOT = Repository.root();
    private static final Path PAGE = ROOT.resolve("docs/configuration.md");

    @Test
    @DisplayName("docs/configuration.md's generated sections match the starter's metadata and the builders' sources")
    void generatedSectionsAreCurrent() throws Exception {
        String page = Files.readString(PAGE);
        String regenerated = ConfigurationReference.regenerate(ROOT, page);

        if (Boolean.getBoolean(WRITE) && !regenerated.equals(page)) {
            Files.writeString(PAGE, regenerated);
            System.out.println("configuration reference: rewrote " + PAGE);
        } else if (!regenerated.equals(page)) {
            fail("docs/configuration.md's generated sections are out of date; regenerate them with:\n  " + COMMAND);
        }
    }

    @Test
    @DisplayName("the page tells its reader how to regenerate it")
    void pageNamesTheCommand() throws Exception {
        assertThat(Files.readString(PAGE)).contains(COMMAND);
    }

    @Test
    @DisplayName("the properties table lists every idem.* property of the metadata, sorted, with pipes escaped")
    void propertiesTable() {
        String table = ConfigurationReference.properties();

        assertThat(table).startsWith("| property | type | default | description |\n|---|---|---|---|\n");
        assertThat(table).contains("| `idem.lease` | `Duration` |", "| `idem.methods` | `List<String>` | `POST,PATCH` |");
        assertThat(table.lines().skip(2).map(line -> line.split(" \\| ")[0]).toList()).isSorted().hasSizeGreaterThan(20);
        assertThat(table.lines().skip(2)).allSatisfy(line -> assertThat(line.split("(?<!\\\\)\\|", -1)).hasSize(6));
    }

    @Test
    @DisplayName("no table of the reference has an empty cell, and no builder an empty table")
    void noEmptyCell() {
        String reference = ConfigurationReference.properties() + "\n" + ConfigurationReference.builders(ROOT);

        assertThat(reference.lines().filter(line -> line.startsWith("|")))
                .allSatisfy(line -> assertThat(line).as("a row with an empty cell").doesNotContain("|  |").doesNotEndWith("| |"));
        assertThat(reference).as("a table header without rows").doesNotContainPattern("\\|---\\|---\\|\n(?!\\|)");
    }

    @Test
    @DisplayName("text inside {@code ...} keeps its angle brackets; only HTML tags are dropped")
    void codeKeepsItsAngleBrackets() {
        String section = ConfigurationReference.builders(ROOT);

        assertThat(section).contains("The file `V<version>__<description>.sql`", "Default `relay-<");
        assertThat(section).contains("### `KafkaOffsetStore.Builder`").contains("Takes the settings of `JdbcComponentBuilder`");
    }

    @Test
    @DisplayName("the builders' section has each public builder of the libraries, with its setters and their javadoc's first sentence")
    void buildersSection() {
        String section = ConfigurationReference.builders(ROOT);

        assertThat(section).contains("### `Idem.Builder`", "### `ConsumerBuilder`", "### `IdempotentKafkaConsumer.Builder`",
                "### `RedisIdempotencyStore.Builder`", "### `WindowedTotals.Builder`");
        assertThat(section).contains("| `lease(Duration)` | How long an owner may run (between renewals) before a retry may take over. Default 30 s. |");
        assertThat(section).contains("| `topics(String...)` |", "| `consumerName(String)` |");
        assertThat(section).doesNotContain("| `build()` |", "| `builder(");
    }
}
