package dev.idem.upserts;

import java.math.BigInteger;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The transformation behind the windowed totals, without a database: the complete input of a
 * range in, the count and sum per window and group out. The result depends only on the set of
 * distinct events, never on their order or on how often each one was delivered. The input is read
 * to its end and checked completely here, before the caller writes anything.
 */
final class WindowComputation {

    /**
     * What the computation reads of an event. The public event type implements it, so that this class
     * needs nothing of the component that writes its result; two events are the same delivery when
     * they are {@code equals}.
     */
    interface Input {
        String id();

        Instant time();

        String group();

        long amount();
    }

    /** The key of one row: a window, by its start in epoch milliseconds, and a group. Ordered by window, then group. */
    record Cell(long windowStart, String group) implements Comparable<Cell> {
        private static final Comparator<Cell> ORDER = Comparator.comparingLong(Cell::windowStart).thenComparing(Cell::group);

        @Override
        public int compareTo(Cell other) {
            return ORDER.compare(this, other);
        }
    }

    /** The totals of one cell. */
    record Totals(long count, long sum) {
    }

    /**
     * @param totals     the non-empty cells in window-then-group order
     * @param events     distinct events (by id) in the input
     * @param duplicates repeated deliveries of an event, counted once each
     */
    record Result(SortedMap<Cell, Totals> totals, long events, long duplicates) {
    }

    private WindowComputation() {
    }

    /**
     * @param aggregate the aggregate's name, for error messages
     * @param from      the range's first instant, a window boundary
     * @param to        the instant after the range, a window boundary after {@code from}
     * @throws NullPointerException     for a null event
     * @throws IllegalArgumentException for an event outside [from, to), or two different events with one id
     * @throws ArithmeticException      if a window's and group's sum does not fit in a long
     */
    static Result compute(String aggregate, Instant from, Instant to, long windowMs, Iterable<? extends Input> events) {
        Objects.requireNonNull(events, "events is null");
        Map<String, Input> byId = new HashMap<>();
        long position = 0;
        long duplicates = 0;
        for (Input event : events) {
            if (event == null) {
                throw new NullPointerException("events has a null at position " + position);
            }
            if (event.time().isBefore(from) || !event.time().isBefore(to)) {
                throw new IllegalArgumentException("the event at position " + position + " lies "
                        + (event.time().isBefore(from) ? "before" : "at or after the end of") + " the range [" + from + ", " + to
                        + "); every event of the input must belong to the range it recomputes");
            }
            Input first = byId.putIfAbsent(event.id(), event);
            if (first != null) {
                if (!first.equals(event)) {
                    // Deciding for one of them would make the totals depend on the input's order.
                    throw new IllegalArgumentException("the event at position " + position + " has the id of an earlier event but another "
                            + differences(first, event) + "; a redelivered event must be identical to the first delivery");
                }
                duplicates++;
            }
            position++;
        }
        TreeMap<Cell, Sum> sums = new TreeMap<>();
        for (Input event : byId.values()) {
            long ms = event.time().toEpochMilli();  // fits: the event lies between two instants that are whole epoch milliseconds
            sums.computeIfAbsent(new Cell(ms - Math.floorMod(ms, windowMs), event.group()), cell -> new Sum()).add(event.amount());
        }
        TreeMap<Cell, Totals> totals = new TreeMap<>();
        for (Map.Entry<Cell, Sum> entry : sums.entrySet()) {
            Cell cell = entry.getKey();
            Sum sum = entry.getValue();
            if (!sum.fitsInLong()) {
                throw new ArithmeticException("the sum of amounts of aggregate '" + aggregate + "' in the window starting at "
                        + Instant.ofEpochMilli(cell.windowStart()) + ", group '" + cell.group() + "', exceeds the range of a long");
            }
            totals.put(cell, new Totals(sum.count, sum.value()));
        }
        return new Result(Collections.unmodifiableSortedMap(totals), byId.size(), duplicates);
    }

    private static String differences(Input a, Input b) {
        List<String> fields = new ArrayList<>(3);
        if (!a.time().equals(b.time())) {
            fields.add("time");
        }
        if (!a.group().equals(b.group())) {
            fields.add("group");
        }
        if (a.amount() != b.amount()) {
            fields.add("amount");
        }
        return String.join(" and ", fields);
    }

    /**
     * An exact sum: only the final value must fit in a long. Failing on an intermediate overflow
     * instead would make the outcome depend on the order of the amounts (MAX, 1, -1 overflows;
     * MAX, -1, 1 does not), and the transformation must not depend on order. Stays a long until an
     * addition overflows, so the usual case costs a Math.addExact per event.
     */
    private static final class Sum {
        long count;
        private long value;
        private BigInteger big;

        void add(long amount) {
            count++;
            if (big == null) {
                try {
                    value = Math.addExact(value, amount);
                    return;
                } catch (ArithmeticException overflow) {
                    big = BigInteger.valueOf(value);
                }
            }
            big = big.add(BigInteger.valueOf(amount));
        }

        boolean fitsInLong() {
            return big == null || big.bitLength() < Long.SIZE;
        }

        long value() {
            return big == null ? value : big.longValueExact();
        }
    }
}
