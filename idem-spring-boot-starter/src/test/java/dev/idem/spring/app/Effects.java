package dev.idem.spring.app;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The side effects of the test application's handlers: how many times each one ran for an item
 * (tests use a fresh item per test), and, when a file is configured, one line per run appended and
 * forced to disk, so a test can count effects across a killed process.
 */
public final class Effects {
    private final Map<String, AtomicInteger> runs = new ConcurrentHashMap<>();
    private final Map<String, List<String>> notes = new ConcurrentHashMap<>();
    private final AtomicInteger sequence = new AtomicInteger();
    private final Path file;

    Effects(Path file) {
        this.file = file;
    }

    /** Records one run of {@code effect} and returns the application-wide sequence number of this run. */
    public int run(String effect) {
        int number = sequence.incrementAndGet();
        runs.computeIfAbsent(effect, e -> new AtomicInteger()).incrementAndGet();
        if (file != null) {
            synchronized (this) {
                try {
                    Files.writeString(file, effect + " " + number + "\n", StandardCharsets.UTF_8,
                            StandardOpenOption.CREATE, StandardOpenOption.APPEND, StandardOpenOption.SYNC);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }
        }
        return number;
    }

    /** How many times {@code effect} ran in this process. */
    public int count(String effect) {
        AtomicInteger count = runs.get(effect);
        return count == null ? 0 : count.get();
    }

    /** Remembers a value seen by a run (e.g. the downstream key a phase was given). */
    public void note(String effect, String value) {
        notes.computeIfAbsent(effect, e -> new CopyOnWriteArrayList<>()).add(value);
    }

    public List<String> notes(String effect) {
        return List.copyOf(notes.getOrDefault(effect, List.of()));
    }
}
