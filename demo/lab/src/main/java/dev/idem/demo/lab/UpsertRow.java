package dev.idem.demo.lab;

import com.zaxxer.hikari.HikariDataSource;
import dev.idem.jdbc.Dialect;
import dev.idem.upserts.Upserts;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import javax.sql.DataSource;

/**
 * Order lines arrive as messages, each delivered at least once. The naive consumer appends a row
 * per delivery; the idempotent one upserts on the line's natural key {@code (order_id, line_id)}
 * with idem's {@link Upserts}, so a redelivery rewrites the same row. Counted: rows per line.
 */
final class UpsertRow {
    static final PatternRow ROW = new PatternRow("upsert-redelivery", Group.UPSERT, "each line delivered 1-3 times, some late",
            List.of(Side.naive("plain INSERT per delivery"), Side.idempotent("upsert on (order_id, line_id)")),
            "order lines", "lines without exactly one row", PatternRow.Needs.DATABASE, UpsertRow::run);

    private static final String APPEND_TABLE = "lab_order_line_append";
    private static final String UPSERT_TABLE = "lab_order_line";
    private static final int LINES_PER_ORDER = 4;

    private UpsertRow() {
    }

    /** One line of an order, as its message carries it. */
    record Line(String orderId, int lineId, String sku, int quantity, long cents) {
        String key() {
            return orderId + "/" + lineId;
        }

        Map<String, Object> row() {
            Map<String, Object> row = new LinkedHashMap<>();
            row.put("order_id", orderId);
            row.put("line_id", lineId);
            row.put("sku", sku);
            row.put("quantity", quantity);
            row.put("cents", cents);
            return row;
        }
    }

    static PatternResult run(PatternRow row, RowContext context) throws SQLException {
        long started = System.nanoTime();
        Random random = new Random(context.seed());
        List<Line> lines = lines(context.items(), random);
        List<Integer> deliveries = Deliveries.atLeastOnce(lines.size(), random);
        try (HikariDataSource db = context.database(row.id(), "orders", 2)) {
            Dialect dialect = Sql.dialect(db);
            String columns = "order_id text NOT NULL, line_id integer NOT NULL, sku text NOT NULL, quantity integer NOT NULL, cents bigint NOT NULL";
            Sql.recreate(db, APPEND_TABLE, "entry_id " + Sql.identity(dialect) + ", " + columns);
            Sql.recreate(db, UPSERT_TABLE, columns + ", PRIMARY KEY (order_id, line_id)");
            Upserts upserts = Upserts.of(dialect);
            SideResult naive = side(row.sides().get(0), db, APPEND_TABLE, lines, deliveries, UpsertRow::append);
            SideResult idem = side(row.sides().get(1), db, UPSERT_TABLE, lines, deliveries,
                    (c, line) -> upserts.insertOrUpdate(c, UPSERT_TABLE, List.of("order_id", "line_id"), line.row()));
            return new PatternResult(row, List.of(naive, idem), deliveries.size() + " deliveries of " + lines.size()
                    + " lines, each applied in a transaction of its own", (System.nanoTime() - started) / 1_000_000, null);
        }
    }

    static List<Line> lines(int count, Random random) {
        List<Line> lines = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            lines.add(new Line(String.format("order-%03d", i / LINES_PER_ORDER + 1), i % LINES_PER_ORDER + 1,
                    "sku-" + (1 + random.nextInt(500)), 1 + random.nextInt(5), 100 + random.nextInt(9_900)));
        }
        return lines;
    }

    @FunctionalInterface
    private interface Apply {
        void apply(Connection connection, Line line) throws SQLException;
    }

    private static SideResult side(Side side, DataSource db, String table, List<Line> lines, List<Integer> deliveries, Apply apply)
            throws SQLException {
        long started = System.nanoTime();
        try (Connection c = db.getConnection()) {
            for (int index : deliveries) {
                apply.apply(c, lines.get(index));
            }
        }
        long millis = (System.nanoTime() - started) / 1_000_000;
        Map<String, Long> rowsPerLine = Sql.longsBy(db, "SELECT order_id || '/' || line_id, count(*) FROM " + table
                + " GROUP BY order_id, line_id");
        long rows = rowsPerLine.values().stream().mapToLong(Long::longValue).sum();
        int wrong = (int) lines.stream().filter(line -> rowsPerLine.getOrDefault(line.key(), 0L) != 1).count();
        return new SideResult(side, lines.size(), rows + " rows", wrong, millis);
    }

    private static void append(Connection c, Line line) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + APPEND_TABLE
                + " (order_id, line_id, sku, quantity, cents) VALUES (?, ?, ?, ?, ?)")) {
            ps.setString(1, line.orderId());
            ps.setInt(2, line.lineId());
            ps.setString(3, line.sku());
            ps.setInt(4, line.quantity());
            ps.setLong(5, line.cents());
            ps.executeUpdate();
        }
    }
}
