package dev.idem.docs;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import java.util.stream.StreamSupport;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The generated parts of docs/configuration.md, from the code itself so the page cannot drift: the
 * {@code idem.*} properties from the starter's configuration metadata, and the builders' settings
 * from the libraries' sources (their javadoc is what the page shows, so it is read from the sources,
 * not from compiled classes, which have none).
 */
final class ConfigurationReference {
    static final String PROPERTIES = "properties";
    static final String BUILDERS = "builders";
    static final String END = "<!-- end generated -->";

    private static final String STARTER_JAR = "idem-spring-boot-starter";
    /** Not libraries: the tooling modules' builders are no one's configuration. */
    private static final List<String> NOT_LIBRARIES = List.of("idem-docs", "idem-benchmarks", "idem-testing");
    private static final Pattern BUILDER_CLASS = Pattern.compile(
            "public\\s+(?:static\\s+|final\\s+|abstract\\s+)*class\\s+(\\w*Builder)\\b([^{]*)\\{");
    private static final Pattern SETTER = Pattern.compile(
            "(?:/\\*\\*((?:(?!\\*/).)*?)\\*/\\s*)?(?:@\\w+(?:\\([^)]*\\))?\\s*)*"
                    + "public\\s+(?!static)(?:final\\s+)?(?:<[^>]*>\\s+)?(\\w+)(?:<[^(]*?>)?\\s+(\\w+)\\s*\\(([^)]*)\\)",
            Pattern.DOTALL);
    private static final Pattern EXTENDS = Pattern.compile("\\bextends\\s+(\\w+)");
    private static final Pattern INLINE_TAG = Pattern.compile("\\{@(link|linkplain|value|code|literal)\\s+([^}]*)}");
    private static final Pattern SENTENCE_END = Pattern.compile("(?<!\\be\\.g|\\bi\\.e|\\betc)\\.(?:\\s+|$)");

    private ConfigurationReference() {
    }

    /** {@code text} with the content between each {@code <!-- generated: name -->} and its end marker replaced. */
    static String regenerate(Path root, String text) {
        String withProperties = replace(text, PROPERTIES, properties());
        return replace(withProperties, BUILDERS, builders(root));
    }

    static String startMarker(String name) {
        return "<!-- generated: " + name + " -->";
    }

    private static String replace(String text, String name, String generated) {
        String start = startMarker(name);
        int from = text.indexOf(start);
        int to = from < 0 ? -1 : text.indexOf(END, from);
        if (from < 0 || to < 0) {
            throw new IllegalStateException("docs/configuration.md needs the markers '" + start + "' and '" + END + "' after it");
        }
        return text.substring(0, from + start.length()) + "\n\n" + generated + "\n" + text.substring(to);
    }

    // ---- idem.* properties ----

    static String properties() {
        JsonNode metadata = starterMetadata();
        List<JsonNode> properties = StreamSupport.stream(metadata.path("properties").spliterator(), false)
                .filter(p -> text(p, "name").startsWith("idem."))
                .sorted(Comparator.comparing(p -> text(p, "name")))
                .toList();
        if (properties.isEmpty()) {
            throw new IllegalStateException("the starter's configuration metadata lists no idem.* property");
        }
        StringBuilder table = new StringBuilder("| property | type | default | description |\n|---|---|---|---|\n");
        for (JsonNode p : properties) {
            table.append(row(code(text(p, "name")), code(shortType(text(p, "type"))),
                    defaultValue(p.path("defaultValue")), oneLine(text(p, "description"))));
        }
        return table.toString();
    }

    private static JsonNode starterMetadata() {
        try {
            List<URL> found = Collections.list(ConfigurationReference.class.getClassLoader()
                            .getResources("META-INF/spring-configuration-metadata.json")).stream()
                    .filter(url -> url.toString().contains(STARTER_JAR)).toList();
            if (found.size() != 1) {
                throw new IllegalStateException("expected the configuration metadata of " + STARTER_JAR
                        + " once on the test class path, found " + found);
            }
            try (InputStream in = found.get(0).openStream()) {
                return JsonMapper.builder().build().readTree(in);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String text(JsonNode node, String field) {
        JsonNode value = node.get(field);
        return value == null || value.isNull() ? "" : value.asString();
    }

    private static String shortType(String type) {
        return type.replaceAll("\\b(?:[a-z]\\w*\\.)+(?=[A-Z])", "").replace("$", ".");
    }

    private static String defaultValue(JsonNode value) {
        if (value.isMissingNode() || value.isNull()) {
            return "(none)";
        }
        if (value.isArray()) {
            String joined = StreamSupport.stream(value.spliterator(), false).map(JsonNode::asString).collect(Collectors.joining(","));
            return joined.isEmpty() ? "(empty)" : code(joined);
        }
        return value.asString().isEmpty() ? "(empty)" : code(value.asString());
    }

    // ---- builders ----

    static String builders(Path root) {
        List<Builder> builders = sources(root).flatMap(source -> buildersIn(root, source).stream())
                .sorted(Comparator.comparing(Builder::name))
                .toList();
        List<String> names = builders.stream().map(Builder::name).toList();
        StringBuilder out = new StringBuilder();
        for (Builder builder : builders) {
            out.append("### `").append(builder.name()).append("`\n\n")
                    .append('`').append(builder.module()).append("`, `").append(builder.file()).append("`\n\n");
            if (names.contains(builder.parent())) {
                out.append("Takes the settings of `").append(builder.parent()).append("` (on this page)")
                        .append(builder.settings().isEmpty() ? "." : ", and:").append("\n\n");
            }
            if (!builder.settings().isEmpty()) {
                out.append("| setting | description |\n|---|---|\n");
                builder.settings().forEach(s -> out.append(row(code(s.signature()), s.description())));
                out.append('\n');
            }
        }
        return out.toString().stripTrailing() + "\n";
    }

    /** @param parent the builder class it extends, or empty: its settings are documented under that builder's name */
    private record Builder(String name, String module, String file, List<Setting> settings, String parent) {
    }

    private record Setting(String signature, String description) {
    }

    private static Stream<Path> sources(Path root) {
        try (Stream<Path> modules = Files.list(root)) {
            List<Path> libraries = modules
                    .filter(m -> m.getFileName().toString().startsWith("idem-") && !NOT_LIBRARIES.contains(m.getFileName().toString()))
                    .map(m -> m.resolve("src/main/java"))
                    .filter(Files::isDirectory)
                    .toList();
            List<Path> files = new ArrayList<>();
            for (Path library : libraries) {
                try (Stream<Path> walk = Files.walk(library)) {
                    walk.filter(p -> p.toString().endsWith(".java")).forEach(files::add);
                }
            }
            return files.stream();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static List<Builder> buildersIn(Path root, Path source) {
        String text = read(source);
        String topLevel = source.getFileName().toString().replace(".java", "");
        String module = root.relativize(source).getName(0).toString();
        String file = root.relativize(source).toString().replace('\\', '/');
        List<Builder> found = new ArrayList<>();
        Matcher declaration = BUILDER_CLASS.matcher(text);
        while (declaration.find()) {
            String simple = declaration.group(1);
            String body = text.substring(declaration.end(), closingBrace(text, declaration.end() - 1));
            String name = simple.equals(topLevel) ? simple : topLevel + "." + simple;
            Matcher parent = EXTENDS.matcher(withoutTypeParameters(declaration.group(2)));
            found.add(new Builder(name, module, file, settings(body, returnTypes(simple, declaration.group(2))),
                    parent.find() ? parent.group(1) : ""));
        }
        return found;
    }

    /** {@code <B extends X<B>> extends Y<B>} without its leading type parameters: {@code extends Y<B>}. */
    private static String withoutTypeParameters(String declaration) {
        String text = declaration.strip();
        if (!text.startsWith("<")) {
            return text;
        }
        int depth = 0;
        for (int i = 0; i < text.length(); i++) {
            depth += text.charAt(i) == '<' ? 1 : text.charAt(i) == '>' ? -1 : 0;
            if (depth == 0) {
                return text.substring(i + 1);
            }
        }
        return "";
    }

    /** The builder's own name, and the type variable that stands for it in a self-typed builder ({@code B extends X<M, B>}). */
    private static List<String> returnTypes(String simple, String typeParameters) {
        Matcher self = Pattern.compile("(\\w+)\\s+extends\\s+" + simple + "\\s*<").matcher(typeParameters);
        return self.find() ? List.of(simple, self.group(1)) : List.of(simple);
    }

    private static List<Setting> settings(String body, List<String> returnTypes) {
        List<Setting> settings = new ArrayList<>();
        Matcher method = SETTER.matcher(body);
        while (method.find()) {
            if (returnTypes.contains(method.group(2))) {
                String signature = method.group(3) + "(" + parameterTypes(method.group(4)) + ")";
                settings.add(new Setting(signature, method.group(1) == null ? "" : summary(method.group(1))));
            }
        }
        return settings;
    }

    private static String parameterTypes(String parameters) {
        List<String> types = new ArrayList<>();
        for (String parameter : splitTopLevel(parameters)) {
            String type = parameter.replaceAll("@\\w+\\s*", "").replaceAll("\\bfinal\\s+", "").strip();
            types.add(type.substring(0, type.lastIndexOf(' ')).strip().replaceAll("\\s+", " "));
        }
        return String.join(", ", types);
    }

    /** Splits on the commas outside generics' angle brackets. */
    private static List<String> splitTopLevel(String parameters) {
        List<String> parts = new ArrayList<>();
        int depth = 0;
        int start = 0;
        for (int i = 0; i < parameters.length(); i++) {
            char c = parameters.charAt(i);
            depth += c == '<' ? 1 : c == '>' ? -1 : 0;
            if (c == ',' && depth == 0) {
                parts.add(parameters.substring(start, i));
                start = i + 1;
            }
        }
        if (!parameters.isBlank()) {
            parts.add(parameters.substring(start));
        }
        return parts;
    }

    /**
     * The javadoc's first sentence, and later ones that start with "Default" or "Required" (the builders
     * put their defaults there, and a reference without them would send every reader to the sources).
     */
    private static String summary(String javadoc) {
        String text = javadoc.replaceAll("(?m)^\\s*\\*", " ").split("(?m)^\\s*@\\w+")[0];
        // HTML tags go, but not the angle brackets inside {@code ...}: those are text (V<version>__<description>.sql).
        List<String> spans = new ArrayList<>();
        text = INLINE_TAG.matcher(text).replaceAll(m -> {
            spans.add("`" + (m.group(1).matches("link|linkplain|value") ? linkText(m.group(2)) : m.group(2).strip()) + "`");
            return "\u0000" + (spans.size() - 1) + "\u0000";
        });
        text = oneLine(text.replaceAll("</?\\w+[^>]*>", ""));
        text = Pattern.compile("\u0000(\\d+)\u0000").matcher(text).replaceAll(m -> Matcher.quoteReplacement(spans.get(Integer.parseInt(m.group(1)))));
        List<String> sentences = sentences(text);
        List<String> kept = new ArrayList<>();
        for (int i = 0; i < sentences.size(); i++) {
            if (i == 0 || sentences.get(i).matches("(Default|Required)\\b.*")) {
                kept.add(sentences.get(i));
            }
        }
        return String.join(" ", kept);
    }

    /** A link's label if it has one, else its target without the leading {@code #} of a member of the same class. */
    private static String linkText(String reference) {
        String target = reference.strip();
        int split = target.contains("(") ? target.indexOf(')') + 1 : target.indexOf(' ');
        if (split > 0 && !target.substring(split).isBlank()) {
            return target.substring(split).strip();
        }
        return target.startsWith("#") ? target.substring(1) : target.replace('#', '.');
    }

    private static List<String> sentences(String text) {
        List<String> sentences = new ArrayList<>();
        Matcher end = SENTENCE_END.matcher(text);
        int start = 0;
        while (end.find()) {
            sentences.add(text.substring(start, end.start() + 1).strip());
            start = end.end();
        }
        if (start < text.length() && !text.substring(start).isBlank()) {
            sentences.add(text.substring(start).strip());
        }
        return sentences;
    }

    /** The index of the brace that closes the one at {@code open}, skipping strings, characters and comments. */
    private static int closingBrace(String text, int open) {
        int depth = 0;
        for (int i = open; i < text.length(); i++) {
            char c = text.charAt(i);
            if (text.startsWith("//", i)) {
                i = text.indexOf('\n', i);
            } else if (text.startsWith("/*", i)) {
                i = text.indexOf("*/", i + 2) + 1;
            } else if (text.startsWith("\"\"\"", i)) {
                i = text.indexOf("\"\"\"", i + 3) + 2;
            } else if (c == '"' || c == '\'') {
                i = endOfLiteral(text, i, c);
            } else if (c == '{') {
                depth++;
            } else if (c == '}' && --depth == 0) {
                return i;
            }
        }
        throw new IllegalStateException("unbalanced braces after offset " + open);
    }

    private static int endOfLiteral(String text, int start, char quote) {
        for (int i = start + 1; i < text.length(); i++) {
            if (text.charAt(i) == '\\') {
                i++;
            } else if (text.charAt(i) == quote) {
                return i;
            }
        }
        throw new IllegalStateException("unterminated literal at offset " + start);
    }

    // ---- Markdown ----

    private static String row(String... cells) {
        return Stream.of(cells).map(cell -> cell.replace("|", "\\|")).collect(Collectors.joining(" | ", "| ", " |\n"));
    }

    private static String code(String text) {
        return text.isEmpty() ? "" : "`" + text + "`";
    }

    private static String oneLine(String text) {
        return text.replaceAll("\\s+", " ").strip();
    }

    private static String read(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
