package dev.idem.docs;

import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Syntax highlighting done when the site is built, so a page needs no script for it: a code block's
 * text becomes HTML with {@code <span class="…">} around comments ({@code c}), strings ({@code s}),
 * keywords ({@code k}), numbers ({@code n}), annotations and attributes ({@code a}) and types or tags
 * ({@code t}); the stylesheet colours them. One ordered list of token patterns per language (Java,
 * Kotlin, SQL, XML, properties, YAML, shell); a block without a language that reads like commands is
 * treated as shell. Anything the patterns do not match is written as it is, escaped.
 */
final class Highlighter {
    private record Rule(String cls, String regex) {
    }

    private static final String JAVA_KEYWORDS = "abstract|assert|boolean|break|byte|case|catch|char|class|continue|default|do|double|else|enum"
            + "|extends|final|finally|float|for|if|implements|import|instanceof|int|interface|long|new|null|package|private|protected"
            + "|public|record|return|short|static|super|switch|this|throw|throws|true|false|try|var|void|volatile|while|yield|sealed|permits";
    private static final String KOTLIN_KEYWORDS = "val|var|fun|class|object|import|package|return|if|else|when|true|false|null|by|in|is";
    private static final String SQL_KEYWORDS = "select|from|where|insert|into|values|update|set|delete|create|table|index|unique|primary|key"
            + "|not|null|default|on|conflict|do|nothing|returning|and|or|alter|add|constraint|references|if|exists|drop|begin|commit"
            + "|bigint|integer|int|text|varchar|bytea|blob|boolean|timestamp|timestamptz|smallint|serial|bigserial|generated|always|as"
            + "|identity|auto_increment|engine|charset|collate|longblob|mediumblob|datetime|order|by|limit|for|skip|locked|join|group"
            + "|check|cascade|with|time|zone|now|interval|in|is|case|when|then|else|end|distinct|count|max|min|sum|varbinary";

    private static final String DOUBLE_QUOTED = "\"(?:\\\\.|[^\"\\\\\\n])*\"";
    private static final String SINGLE_QUOTED = "'(?:\\\\.|[^'\\\\\\n])*'";
    private static final String NUMBER = "\\b\\d[\\d_]*(?:\\.\\d+)?[lLdDfF]?\\b";

    private static final Map<String, List<Rule>> LANGUAGES = new LinkedHashMap<>();

    static {
        List<Rule> java = List.of(
                new Rule("c", "//[^\\n]*|/\\*[\\s\\S]*?\\*/"),
                new Rule("s", "\"\"\"[\\s\\S]*?\"\"\"|" + DOUBLE_QUOTED + "|'(?:\\\\.|[^'\\\\\\n])'"),
                new Rule("a", "@[A-Za-z_][\\w.]*"),
                new Rule("k", "\\b(?:" + JAVA_KEYWORDS + ")\\b"),
                new Rule("t", "\\b[A-Z][A-Za-z0-9_]*\\b"),
                new Rule("n", NUMBER));
        LANGUAGES.put("java", java);
        LANGUAGES.put("kotlin", List.of(
                new Rule("c", "//[^\\n]*|/\\*[\\s\\S]*?\\*/"),
                new Rule("s", DOUBLE_QUOTED),
                new Rule("a", "@[A-Za-z_][\\w.]*"),
                new Rule("k", "\\b(?:" + KOTLIN_KEYWORDS + ")\\b"),
                new Rule("n", NUMBER)));
        LANGUAGES.put("sql", List.of(
                new Rule("c", "--[^\\n]*|/\\*[\\s\\S]*?\\*/"),
                new Rule("s", "'(?:''|[^'])*'"),
                new Rule("k", "(?i)\\b(?:" + SQL_KEYWORDS + ")\\b(?-i)"),
                new Rule("n", NUMBER)));
        LANGUAGES.put("xml", List.of(
                new Rule("c", "<!--[\\s\\S]*?-->"),
                new Rule("t", "</?[A-Za-z_][\\w:.-]*|/?>"),
                new Rule("a", "(?<=\\s)[A-Za-z_][\\w:.-]*(?==\")"),
                new Rule("s", "\"[^\"\\n]*\"")));
        LANGUAGES.put("properties", List.of(
                new Rule("c", "(?m)^\\s*[#!][^\\n]*"),
                new Rule("a", "(?m)^\\s*[\\w.\\-\\[\\]]+(?=\\s*[=:])")));
        LANGUAGES.put("yaml", List.of(
                new Rule("c", "(?m)(?:^|(?<=\\s))#[^\\n]*"),
                new Rule("a", "(?m)^\\s*(?:- )?[\\w.\\-]+(?=:)"),
                new Rule("s", DOUBLE_QUOTED + "|" + SINGLE_QUOTED),
                new Rule("n", NUMBER)));
        LANGUAGES.put("shell", List.of(
                new Rule("c", "(?m)(?:^|(?<=\\s))#[^\\n]*"),
                new Rule("s", DOUBLE_QUOTED + "|'[^'\\n]*'"),
                new Rule("k", "(?m)^\\s*(?:\\$ )?(?:\\./idem|mvn|curl|git|java|cd|export|docker|psql|redis-cli|apt-get|sudo|gradle|kafka-[\\w.-]+)\\b"),
                new Rule("a", "(?<=\\s)--?[A-Za-z][\\w.-]*")));
        for (String alias : List.of("bash", "sh", "console", "zsh")) {
            LANGUAGES.put(alias, LANGUAGES.get("shell"));
        }
        LANGUAGES.put("yml", LANGUAGES.get("yaml"));
        LANGUAGES.put("gradle", LANGUAGES.get("kotlin"));
        LANGUAGES.put("kts", LANGUAGES.get("kotlin"));
    }

    /** Each language's rules as one pattern of named groups g0, g1, … in the rules' order (earlier rules win). */
    private static final Map<List<Rule>, Pattern> COMPILED = new IdentityHashMap<>();

    static {
        LANGUAGES.values().forEach(rules -> COMPILED.computeIfAbsent(rules, Highlighter::compile));
    }

    /** A block without a language reads as commands when its first line starts like one. */
    private static final Pattern COMMAND = Pattern.compile("^\\s*(?:\\$ )?(?:\\./idem|mvn|curl|git|cd|export|docker|psql|java -)\\b");

    private Highlighter() {
    }

    /** The language a fence names ({@code java}, {@code sql}), or a guess for an unnamed block; empty when none applies. */
    static Optional<String> language(String info, String code) {
        String named = info == null ? "" : info.trim().split("\\s+")[0].toLowerCase(Locale.ROOT);
        if (!named.isEmpty()) {
            return LANGUAGES.containsKey(named) ? Optional.of(named) : Optional.empty();
        }
        return COMMAND.matcher(code).find() ? Optional.of("shell") : Optional.empty();
    }

    /** The code as escaped HTML with spans around its tokens; only escaped when {@code language} is not known. */
    static String highlight(String language, String code) {
        List<Rule> rules = LANGUAGES.get(language);
        if (rules == null) {
            return Layout.escape(code);
        }
        Pattern pattern = COMPILED.get(rules);
        StringBuilder html = new StringBuilder(code.length() * 2);
        Matcher m = pattern.matcher(code);
        int at = 0;
        while (m.find()) {
            if (m.end() == m.start()) {
                continue;
            }
            html.append(Layout.escape(code.substring(at, m.start())));
            for (int g = 0; g < rules.size(); g++) {
                if (m.group("g" + g) != null) {
                    html.append("<span class=\"").append(rules.get(g).cls()).append("\">").append(Layout.escape(m.group())).append("</span>");
                    break;
                }
            }
            at = m.end();
        }
        return html.append(Layout.escape(code.substring(at))).toString();
    }

    private static Pattern compile(List<Rule> rules) {
        StringBuilder regex = new StringBuilder();
        for (int g = 0; g < rules.size(); g++) {
            regex.append(g == 0 ? "" : "|").append("(?<g").append(g).append('>').append(rules.get(g).regex()).append(')');
        }
        return Pattern.compile(regex.toString());
    }
}
