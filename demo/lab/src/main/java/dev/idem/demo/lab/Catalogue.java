package dev.idem.demo.lab;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Every row of the lab by pattern: the scenarios of the HTTP edge and the inbox ({@link Scenarios})
 * and the pattern rows ({@link Patterns}). {@code --scenarios} names rows or whole groups.
 */
public final class Catalogue {
    private Catalogue() {
    }

    /** What a lab run does: scenarios and pattern rows, each in table order. */
    public record Selection(List<Scenario> scenarios, List<PatternRow> patterns) {
        public Selection {
            scenarios = List.copyOf(scenarios);
            patterns = List.copyOf(patterns);
        }
    }

    public static Selection all() {
        return new Selection(Scenarios.all(), Patterns.byDefault());
    }

    /** The pattern a scenario shows: the idempotency keys, or the inbox for the messaging rows. */
    public static Group group(Scenario scenario) {
        return scenario.messaging() ? Group.INBOX : Group.KEYS;
    }

    /**
     * The rows named by id or by group id, in table order; an empty list means all but the opt-in rows.
     *
     * @throws IllegalArgumentException naming the unknown names and listing the known groups and rows
     */
    public static Selection select(List<String> names) {
        if (names == null || names.isEmpty()) {
            return all();
        }
        Set<String> wanted = new LinkedHashSet<>();
        List<String> unknown = new ArrayList<>();
        for (String raw : names) {
            String name = raw.trim();
            List<String> rows = rowsOf(name);
            if (rows.isEmpty()) {
                unknown.add(raw);
            }
            wanted.addAll(rows);
        }
        if (!unknown.isEmpty()) {
            throw new IllegalArgumentException("unknown scenario(s) " + unknown + "; groups: " + String.join(", ", groupIds())
                    + "; rows: " + String.join(", ", rowIds()));
        }
        return new Selection(Scenarios.all().stream().filter(s -> wanted.contains(s.id())).toList(),
                Patterns.all().stream().filter(p -> wanted.contains(p.id())).toList());
    }

    /** The row ids a name stands for: a group's rows, the row itself, or none. */
    private static List<String> rowsOf(String name) {
        for (Group group : Group.values()) {
            if (group.id().equals(name)) {
                List<String> rows = new ArrayList<>();
                Scenarios.all().stream().filter(s -> group(s) == group).forEach(s -> rows.add(s.id()));
                Patterns.all().stream().filter(p -> p.group() == group).forEach(p -> rows.add(p.id()));
                return rows;
            }
        }
        return rowIds().contains(name) ? List.of(name) : List.of();
    }

    static List<String> groupIds() {
        return Arrays.stream(Group.values()).map(Group::id).toList();
    }

    static List<String> rowIds() {
        List<String> ids = new ArrayList<>();
        Scenarios.all().forEach(s -> ids.add(s.id()));
        Patterns.all().forEach(p -> ids.add(p.id()));
        return ids;
    }
}
