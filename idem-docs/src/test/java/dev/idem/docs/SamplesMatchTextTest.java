package dev.idem.docs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.fail;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * Every Java sample of README.md and docs/ is the text of a marked region of a Java source that the
 * build compiles (and, for most, runs: the tests beside those sources). One dynamic test per printed
 * sample, named after it and where it is printed.
 */
class SamplesMatchTextTest {
    private static final Path ROOT = Repository.root();
    private static final List<Path> DOCUMENTS = Samples.documents(ROOT);
    private static final Map<String, List<Samples.Region>> REGIONS = Samples.regions(ROOT);

    @TestFactory
    Stream<DynamicTest> eachPrintedSampleIsItsSource() {
        List<Samples.Printed> printed = Samples.printed(ROOT, DOCUMENTS);
        System.out.printf("samples: %d printed in %d documents, from %d marked regions%n",
                printed.size(), printed.stream().map(Samples.Printed::file).distinct().count(), REGIONS.size());
        return printed.stream().map(sample -> DynamicTest.dynamicTest(sample.name() + " (" + sample.where() + ")", () -> compare(sample)));
    }

    private static void compare(Samples.Printed sample) {
        List<Samples.Region> sources = REGIONS.getOrDefault(sample.name(), List.of());
        if (sources.isEmpty()) {
            fail("sample '" + sample.name() + "' printed in " + sample.where() + " has no source: mark its code in a compiled Java file"
                    + " between '// sample: " + sample.name() + "' and '// end sample'");
        }
        if (sources.size() > 1) {
            fail("sample '" + sample.name() + "' printed in " + sample.where() + " has " + sources.size() + " sources: "
                    + sources.stream().map(Samples.Region::where).collect(Collectors.joining(", ")));
        }
        Samples.Region source = sources.get(0);
        String text = Samples.normalise(sample.code());
        String code = Samples.normalise(source.code());
        if (!text.equals(code)) {
            fail("sample '" + sample.name() + "' printed in " + sample.where() + " differs from its source " + source.where() + "\n"
                    + firstDifference(text, code));
        }
    }

    @Test
    @DisplayName("no fenced Java block in README.md or docs/ escapes the comparison: each has a sample marker")
    void everyJavaBlockIsMarked() {
        assertThat(Samples.unmarked(ROOT, DOCUMENTS)).as("```java blocks without <!-- sample: name --> on the line before").isEmpty();
    }

    @Test
    @DisplayName("every marked region of the sources is printed somewhere (no stale sample sources)")
    void everyRegionIsPrinted() {
        Set<String> printed = Samples.printed(ROOT, DOCUMENTS).stream().map(Samples.Printed::name).collect(Collectors.toSet());

        assertThat(REGIONS.keySet()).as("regions no document prints").allSatisfy(name -> assertThat(printed).contains(name));
    }

    private static String firstDifference(String text, String code) {
        String[] a = text.split("\n", -1);
        String[] b = code.split("\n", -1);
        for (int i = 0; i < Math.max(a.length, b.length); i++) {
            String printed = i < a.length ? a[i] : "(no line)";
            String source = i < b.length ? b[i] : "(no line)";
            if (!printed.equals(source)) {
                return "first difference at line " + (i + 1) + " of the sample:\n  printed: " + printed + "\n  source:  " + source;
            }
        }
        return "";
    }
}
