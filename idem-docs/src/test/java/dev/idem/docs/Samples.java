package dev.idem.docs;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The Java samples of the documentation and the marked regions of the sources they are taken from.
 *
 * <p>In Markdown, a sample is a fenced code block right after a line {@code <!-- sample: name -->}.
 * In Java, a region is the lines between {@code // sample: name} (several names separated by commas,
 * optionally followed by a remark in parentheses) and {@code // end sample}. Both are compared as
 * {@link #normalise normalised} text.
 */
final class Samples {
    private static final Pattern DOC_MARKER = Pattern.compile("^<!--\\s*sample:\\s*([A-Za-z0-9._-]+)\\s*-->\\s*$");
    private static final Pattern FENCE = Pattern.compile("^(```+|~~~+)\\s*([A-Za-z0-9_+-]*).*$");
    private static final String SOURCE_MARKER = "// sample:";
    private static final String SOURCE_END = "// end sample";
    private static final List<String> SKIPPED_FOLDERS = List.of("target", ".git", "data", "node_modules");

    private Samples() {
    }

    /** A sample as printed: its name, where it is, and its code. */
    record Printed(String name, Path file, int line, String code) {
        String where() {
            return file + ":" + line;
        }
    }

    /** A fenced Java block with no sample marker before it. */
    record Unmarked(Path file, int line) {
    }

    /** A marked region of a Java source. */
    record Region(String name, Path file, int line, String code) {
        String where() {
            return file + ":" + line;
        }
    }

    /** The Markdown files whose samples are checked: README.md and docs/*.md, repository-relative. */
    static List<Path> documents(Path root) {
        try (Stream<Path> docs = Files.list(root.resolve("docs"))) {
            List<Path> all = new ArrayList<>(List.of(Path.of("README.md")));
            docs.filter(f -> f.toString().endsWith(".md")).map(f -> Path.of("docs").resolve(f.getFileName())).sorted().forEach(all::add);
            return all;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Every marked sample in {@code documents}, in order. */
    static List<Printed> printed(Path root, List<Path> documents) {
        List<Printed> samples = new ArrayList<>();
        for (Path document : documents) {
            List<String> lines = lines(root.resolve(document));
            for (int i = 0; i < lines.size(); i++) {
                Matcher marker = DOC_MARKER.matcher(lines.get(i).trim());
                if (marker.matches()) {
                    samples.add(new Printed(marker.group(1), document, i + 1, fencedAfter(lines, i, document)));
                }
            }
        }
        return samples;
    }

    /** Fenced {@code java} blocks that no marker names, so that no sample can escape the comparison. */
    static List<Unmarked> unmarked(Path root, List<Path> documents) {
        List<Unmarked> found = new ArrayList<>();
        for (Path document : documents) {
            List<String> lines = lines(root.resolve(document));
            boolean inFence = false;
            for (int i = 0; i < lines.size(); i++) {
                Matcher fence = FENCE.matcher(lines.get(i).trim());
                if (!fence.matches()) {
                    continue;
                }
                if (!inFence && fence.group(2).equals("java") && !markedBefore(lines, i)) {
                    found.add(new Unmarked(document, i + 1));
                }
                inFence = !inFence;
            }
        }
        return found;
    }

    /** Every marked region of every Java file under {@code root}, build output and data excluded, by name. */
    static Map<String, List<Region>> regions(Path root) {
        Map<String, List<Region>> regions = new LinkedHashMap<>();
        try (Stream<Path> files = Files.walk(root)) {
            for (Path file : files.filter(f -> f.toString().endsWith(".java")).filter(f -> !skipped(root, f)).sorted().toList()) {
                for (Region region : regionsIn(root.relativize(file), lines(file))) {
                    regions.computeIfAbsent(region.name(), n -> new ArrayList<>()).add(region);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return regions;
    }

    /**
     * Code as compared: trailing spaces and leading and trailing blank lines dropped, and the
     * indentation all lines share removed.
     */
    static String normalise(String code) {
        List<String> lines = new ArrayList<>(Arrays.stream(code.split("\n", -1)).map(String::stripTrailing).toList());
        while (!lines.isEmpty() && lines.get(0).isEmpty()) {
            lines.remove(0);
        }
        while (!lines.isEmpty() && lines.get(lines.size() - 1).isEmpty()) {
            lines.remove(lines.size() - 1);
        }
        int indent = lines.stream().filter(l -> !l.isEmpty()).mapToInt(l -> l.length() - l.stripLeading().length()).min().orElse(0);
        return String.join("\n", lines.stream().map(l -> l.isEmpty() ? l : l.substring(indent)).toList());
    }

    private static List<Region> regionsIn(Path file, List<String> lines) {
        List<Region> regions = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i).trim();
            if (!line.startsWith(SOURCE_MARKER)) {
                continue;
            }
            int end = i + 1;
            while (end < lines.size() && !lines.get(end).trim().equals(SOURCE_END)) {
                if (lines.get(end).trim().startsWith(SOURCE_MARKER)) {
                    throw new IllegalStateException(file + ":" + (end + 1) + ": a sample region starts inside the one opened at line " + (i + 1));
                }
                end++;
            }
            if (end == lines.size()) {
                throw new IllegalStateException(file + ":" + (i + 1) + ": '" + SOURCE_END + "' is missing for this sample region");
            }
            String code = String.join("\n", lines.subList(i + 1, end));
            for (String name : names(line)) {
                regions.add(new Region(name, file, i + 1, code));
            }
            i = end;
        }
        return regions;
    }

    private static List<String> names(String marker) {
        String names = marker.substring(SOURCE_MARKER.length());
        int remark = names.indexOf('(');
        return Arrays.stream((remark < 0 ? names : names.substring(0, remark)).split(",")).map(String::trim).filter(n -> !n.isEmpty()).toList();
    }

    private static String fencedAfter(List<String> lines, int marker, Path document) {
        int open = marker + 1;
        if (open >= lines.size() || !FENCE.matcher(lines.get(open).trim()).matches()) {
            throw new IllegalStateException(document + ":" + (marker + 1) + ": a sample marker must be followed at once by a fenced code block");
        }
        String fence = lines.get(open).trim().replaceAll("[^`~].*$", "");
        int close = open + 1;
        while (close < lines.size() && !lines.get(close).trim().equals(fence)) {
            close++;
        }
        if (close == lines.size()) {
            throw new IllegalStateException(document + ":" + (open + 1) + ": the code block is never closed");
        }
        return String.join("\n", lines.subList(open + 1, close));
    }

    private static boolean markedBefore(List<String> lines, int fence) {
        return fence > 0 && DOC_MARKER.matcher(lines.get(fence - 1).trim()).matches();
    }

    private static boolean skipped(Path root, Path file) {
        for (Path part : root.relativize(file)) {
            if (SKIPPED_FOLDERS.contains(part.toString())) {
                return true;
            }
        }
        return false;
    }

    private static List<String> lines(Path file) {
        try {
            return Files.readAllLines(file);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file, e);
        }
    }
}
