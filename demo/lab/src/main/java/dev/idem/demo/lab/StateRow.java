package dev.idem.demo.lab;

import com.zaxxer.hikari.HikariDataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import javax.sql.DataSource;

/**
 * Each invoice is paid by one payment whose "paid" event is delivered at least once. The naive
 * consumer applies it as an increment ({@code paid = paid + amount}), so every redelivery pays again;
 * the idempotent one assigns the state the event describes ({@code paid_total = amount,
 * status = 'paid'}), which is the same however often it is applied. Counted: invoices whose
 * stored payment is not what is due.
 */
final class StateRow {
    static final PatternRow ROW = new PatternRow("state-vs-increment", Group.STATE, "each paid event delivered 1-3 times, some late",
            List.of(Side.naive("paid = paid + amount"), Side.idempotent("paid_total = amount, status = 'paid'")),
            "invoices", "invoices whose payment is not what is due", PatternRow.Needs.DATABASE, StateRow::run);

    private static final String INCREMENT_TABLE = "lab_invoice_increment";
    private static final String STATE_TABLE = "lab_invoice_state";

    private StateRow() {
    }

    static PatternResult run(PatternRow row, RowContext context) throws SQLException {
        long started = System.nanoTime();
        Random random = new Random(context.seed());
        List<Long> due = new ArrayList<>();
        for (int i = 0; i < context.items(); i++) {
            due.add(100L + random.nextInt(99_900));
        }
        List<Integer> deliveries = Deliveries.atLeastOnce(due.size(), random);
        try (HikariDataSource db = context.database(row.id(), "invoices", 2)) {
            Sql.recreate(db, INCREMENT_TABLE, "invoice_id integer PRIMARY KEY, due bigint NOT NULL, paid bigint NOT NULL");
            Sql.recreate(db, STATE_TABLE, "invoice_id integer PRIMARY KEY, due bigint NOT NULL, paid_total bigint NOT NULL, status text NOT NULL");
            open(db, INCREMENT_TABLE, "(invoice_id, due, paid) VALUES (?, ?, 0)", due);
            open(db, STATE_TABLE, "(invoice_id, due, paid_total, status) VALUES (?, ?, 0, 'open')", due);
            SideResult naive = side(row.sides().get(0), db, due, deliveries,
                    "UPDATE " + INCREMENT_TABLE + " SET paid = paid + ? WHERE invoice_id = ?",
                    "SELECT due, paid, 'paid' FROM " + INCREMENT_TABLE);
            SideResult idem = side(row.sides().get(1), db, due, deliveries,
                    "UPDATE " + STATE_TABLE + " SET paid_total = ?, status = 'paid' WHERE invoice_id = ?",
                    "SELECT due, paid_total, status FROM " + STATE_TABLE);
            return new PatternResult(row, List.of(naive, idem), deliveries.size() + " deliveries of " + due.size() + " paid events",
                    (System.nanoTime() - started) / 1_000_000, null);
        }
    }

    /** The invoices, open and unpaid. */
    private static void open(DataSource db, String table, String values, List<Long> due) throws SQLException {
        try (Connection c = db.getConnection(); PreparedStatement ps = c.prepareStatement("INSERT INTO " + table + " " + values)) {
            for (int i = 0; i < due.size(); i++) {
                ps.setInt(1, i);
                ps.setLong(2, due.get(i));
                ps.addBatch();
            }
            ps.executeBatch();
        }
    }

    /**
     * Applies every delivery with {@code update} (amount, invoice), then reads each invoice's due,
     * paid and status with {@code read}.
     */
    private static SideResult side(Side side, DataSource db, List<Long> due, List<Integer> deliveries, String update, String read)
            throws SQLException {
        long started = System.nanoTime();
        try (Connection c = db.getConnection(); PreparedStatement ps = c.prepareStatement(update)) {
            for (int invoice : deliveries) {
                ps.setLong(1, due.get(invoice));
                ps.setInt(2, invoice);
                ps.executeUpdate();
            }
        }
        long millis = (System.nanoTime() - started) / 1_000_000;
        int wrong = 0;
        long duePaid = 0;
        long paid = 0;
        try (Connection c = db.getConnection(); Statement st = c.createStatement(); ResultSet rs = st.executeQuery(read)) {
            while (rs.next()) {
                duePaid += rs.getLong(1);
                paid += rs.getLong(2);
                if (rs.getLong(1) != rs.getLong(2) || !"paid".equals(rs.getString(3))) {
                    wrong++;
                }
            }
        }
        return new SideResult(side, due.size(), "paid " + Sql.money(paid) + " of " + Sql.money(duePaid) + " due", wrong, millis);
    }
}
