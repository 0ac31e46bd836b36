package dev.idem.bench;

import com.zaxxer.hikari.HikariDataSource;
import dev.idem.Sweeper;
import dev.idem.jdbc.JdbcIdempotencyStore;
import dev.idem.jdbc.RetentionPartitions;
import dev.idem.spi.Purgeable;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentSkipListSet;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;

/**
 * Part "scale" (opt-in): the key store on PostgreSQL and on MariaDB (each when the run's backends
 * include it, as they do by default) holding a day of traffic. Two tables per database (or the one
 * {@code --layouts} asks for), one unpartitioned (the sweeper deletes expired rows in batches) and one
 * with retention by partition (one partition an hour, dropped whole), each loaded with {@code --rows}
 * completed records (200-byte bodies, the scope, fingerprint and headers the bench's claims write,
 * expiries spread over the next 23 hours, and one hour's worth, a 24th, already expired).
 * Measured on each, on the empty table and at full size: claim+complete of new keys (rate, p50, p99,
 * and the WAL a claim+complete writes), replays of completed keys (at full size, old keys drawn over
 * the whole table, so most reads miss the buffer cache's recent pages); the bytes a record takes; the
 * purge of the expired hour, rows deleted by the store's own purge (the sweeper's call) against one
 * partition dropped, in time and in WAL written, with what it leaves to the vacuum; then an hour loaded
 * anew and purged again while 8 threads claim+complete, their p99 during the purge against just
 * before it, and (PostgreSQL) the table locks seen in {@code pg_locks} meanwhile. WAL is this
 * database's own records where pg_walinspect can tell them apart (the server is shared), else the
 * server's whole log.
 */
final class ScaleBench {
    static final String PLAIN = "idem_scale";
    static final String PARTITIONED = "idem_scale_p";
    private static final Duration WIDTH = Duration.ofHours(1);
    private static final Duration HORIZON = Duration.ofHours(25);
    private static final int THREADS = 8;
    private static final int PURGE_BATCH = 500;

    private final Options options;
    private final Postgres pg;

    ScaleBench(Options options, Postgres pg) {
        this.options = options;
        this.pg = pg;
    }

    List<Row> run() throws Exception {
        List<Row> rows = new ArrayList<>();
        if (options.backends.contains("postgresql")) {
            rows.addAll(run(new PostgresTables(pg)));
        }
        if (options.backends.contains(OwnServerBench.MARIADB)) {
            try (MariadbTables mariadb = new MariadbTables(options.mariadbUrl)) {
                rows.addAll(run(mariadb));
            }
        }
        return rows;
    }

    private List<Row> run(Database db) throws Exception {
        List<Row> rows = new ArrayList<>();
        boolean wantPlain = options.scaleLayouts.contains("unpartitioned");
        boolean wantPartitioned = options.scaleLayouts.contains("partitioned");
        // 8 claimers, the purge, the lock sampler, and the log-position reads between them.
        try (HikariDataSource ds = db.pool(THREADS + 4)) {
            checkDisk(db, ds, (wantPlain ? 1 : 0) + (wantPartitioned ? 1 : 0));
            if (wantPlain) {
                JdbcIdempotencyStore plain = JdbcIdempotencyStore.builder(ds).tableName(PLAIN).build();
                plain.migrate();
                rows.addAll(table(db, ds, plain, PLAIN, "unpartitioned", () -> purgeRowByRow(db, ds, plain)));
            }
            if (wantPartitioned) {
                JdbcIdempotencyStore partitioned = JdbcIdempotencyStore.builder(ds).tableName(PARTITIONED)
                        .retentionByPartition(WIDTH, HORIZON).build();
                partitioned.migrate();
                RetentionPartitions partitions = partitioned.retentionPartitions().orElseThrow();
                partitions.maintain();
                if (!partitions.partitioned()) {
                    throw new IllegalStateException("the partitioned store's table is not partitioned after migrate and maintain");
                }
                rows.addAll(table(db, ds, partitioned, PARTITIONED, "by partition (1 h)", () -> purgeByDrop(db, ds, partitions)));
            }
        }
        return rows;
    }

    /** Disk a record takes with its indexes, rounded up from the measured 370-480 B, plus room for the reloaded hour. */
    static final long ESTIMATED_BYTES_PER_ROW = 500;

    /**
     * The disk the run will fill, printed, and checked against the free space of the database's data
     * directory when that directory is on this machine (its path exists here): a run that cannot fit
     * stops before loading anything instead of filling the disk half way through.
     */
    private void checkDisk(Database db, HikariDataSource ds, int tables) throws SQLException {
        long needed = estimatedBytes(options.scaleRows, tables);
        String dir;
        try (Connection c = ds.getConnection(); Statement st = c.createStatement()) {
            dir = db.dataDirectory(st);
        }
        long free = freeBytes(dir);
        String estimate = String.format(Locale.ROOT, "%s: %,d rows (and an hour more) x %d B x %d table(s) = about %.1f GB of disk in %s",
                db.product(), options.scaleRows, ESTIMATED_BYTES_PER_ROW, tables, needed / 1e9, dir);
        if (free < 0) {
            Bench.progress("scale " + estimate + " (its free space is not known from here)");
            return;
        }
        Bench.progress(String.format(Locale.ROOT, "scale %s, %.1f GB free there", estimate, free / 1e9));
        if (needed > free) {
            throw new NotEnoughDisk(String.format(Locale.ROOT,
                    "not enough free disk for the scale part: %s, but only %.1f GB free there; lower --rows or load one table (--layouts)",
                    estimate, free / 1e9));
        }
    }

    /** The scale part refused to start: what it would fill does not fit; the message says what to change. */
    static final class NotEnoughDisk extends IllegalStateException {
        private static final long serialVersionUID = 1L;

        NotEnoughDisk(String message) {
            super(message);
        }
    }

    /** Each table holds {@code rows} records and, for the purge under load, an hour (a 24th) more. */
    static long estimatedBytes(long rows, int tables) {
        return (rows + rows / 24) * ESTIMATED_BYTES_PER_ROW * tables;
    }

    /** Usable bytes of the file system holding {@code dir}, or -1 when the path is not on this machine or not readable. */
    static long freeBytes(String dir) {
        if (dir == null || dir.isBlank()) {
            return -1;
        }
        try {
            Path p = Path.of(dir);
            if (!Files.exists(p)) {
                return -1;
            }
            return Files.getFileStore(p).getUsableSpace();
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    /** What differs between the databases: their pools, the load statement, sizes and the log position. */
    private interface Database {
        String product();

        HikariDataSource pool(int size);

        /** The database's clock, in epoch milliseconds (the store's clock). */
        long nowMillis(Statement st) throws SQLException;

        /** On the partitioned table, a partition of its own for the expired hour [from, to), as maintenance would have made it. */
        void expiredHourPartition(Statement st, String table, long from, long to) throws SQLException;

        /**
         * Inserts completed records {@code from..to} (the row number {@code g}, key {@code "k" + g}), one
         * statement; {@code expiry} is a SQL expression of {@code g}.
         */
        void insert(Statement st, String table, long from, long to, long now, String expiry) throws SQLException;

        void analyze(Statement st, String table) throws SQLException;

        /** Heap, indexes and TOAST (or their InnoDB counterparts) of the table and its partitions. */
        long totalBytes(Statement st, String table) throws SQLException;

        /** The write-ahead (redo) log's position in bytes: the difference is the log a step wrote. */
        long logPosition(Statement st) throws SQLException;

        /**
         * The log this database's own work wrote between two positions (its records and its
         * transactions' commits: the server is shared, others write too), or -1 if not observable.
         */
        long ownLogBytes(Statement st, long from, long to) throws SQLException;

        /** Where the server keeps its data, or null if it does not say. */
        String dataDirectory(Statement st) throws SQLException;

        /** The table-level locks other sessions hold or wait for on the table and its partitions, one line each; empty if not observable. */
        List<String> locks(Statement st, String table) throws SQLException;

        /** What is left for the vacuum (autovacuum, InnoDB's purge) after a row-by-row purge, or null if not observable. */
        String vacuumState(Statement st, String table) throws SQLException;
    }

    @FunctionalInterface
    private interface Purge {
        Purged run() throws Exception;
    }

    /** What one purge of the expired hour did, and the log positions around it (read after it, not while it times). */
    private record Purged(long rows, long millis, long logFrom, long logTo) {
    }

    /** A claim+complete loop and the log it wrote, per operation (warm-up included in both). */
    private record Loop(Measured measured, Wal wal, long ops) {
        long walPerOp() {
            return ops == 0 ? 0 : wal.bytes() / ops;
        }
    }

    /** Log bytes written, counted from this database's own records or, where they cannot be told apart, the whole server's. */
    private record Wal(long bytes, boolean own) {
        String what() {
            return own ? "WAL" : "WAL (whole server)";
        }
    }

    /** The log between two positions: this database's share when the database can tell it, else everything. */
    private static Wal wal(Database db, HikariDataSource ds, long from, long to) {
        try (Connection c = ds.getConnection(); Statement st = c.createStatement()) {
            long own = db.ownLogBytes(st, from, to);
            if (own >= 0) {
                return new Wal(own, true);
            }
        } catch (SQLException e) {
            // the log was recycled before it was read (a long purge past a checkpoint): the server's total
        }
        return new Wal(to - from, false);
    }

    /** The clock of a load: its start, and the expired hour [expiredFrom, hourStart) on the database's clock. */
    private record Loaded(long now, long expiredFrom, long hourStart) {
    }

    /** Live records' expiries go from a minute after the load over the next 23 hours, evenly by row number. */
    private static final long SPREAD = Duration.ofHours(23).toMillis();
    private static final long FIRST_EXPIRY = 60_000;

    private List<Row> table(Database db, HikariDataSource ds, JdbcIdempotencyStore store, String table, String layout, Purge purge)
            throws Exception {
        List<Row> rows = new ArrayList<>();
        String label = db.product() + ", " + layout;
        Bench.progress("scale " + label + ": claim+complete on the empty table, " + THREADS + " threads");
        Loop empty = claimCompletes(db, ds, store);
        rows.add(new Row("scale", "claim+complete, empty table", label, THREADS, empty.measured(), "ops/s", null, Double.NaN,
                walNote(empty)));
        Bench.progress("scale " + label + ": replays on the empty table");
        List<String> recent = StoreBench.populate(store, StoreBench.REPLAY_KEYS);
        Measured replayEmpty = StoreBench.replays(store, THREADS, options.warmup, options.duration,
                random -> recent.get(random.nextInt(recent.size())));
        rows.add(new Row("scale", "replay of a completed key, empty table", label, THREADS, replayEmpty, "ops/s", null, Double.NaN,
                String.format(Locale.ROOT, "%,d keys just completed", recent.size())));
        long total = options.scaleRows;
        long expired = total / 24;
        Bench.progress("scale " + label + ": loading " + total + " records (" + expired + " of them expired)");
        long loadStarted = System.nanoTime();
        Loaded loaded = load(db, ds, table, total, expired);
        long loadMillis = (System.nanoTime() - loadStarted) / 1_000_000;
        long bytes;
        try (Connection c = ds.getConnection(); Statement st = c.createStatement()) {
            bytes = db.totalBytes(st, table);
        }
        long count = count(ds, table);
        String size = String.format(Locale.ROOT, "%,d rows, %d B a row (heap, indexes, TOAST), loaded in %d s", count,
                count == 0 ? 0 : bytes / count, loadMillis / 1000);
        Bench.progress("scale " + label + ": " + size + "; claim+complete at full size");
        Loop full = claimCompletes(db, ds, store);
        rows.add(new Row("scale", "claim+complete, " + millions(count) + " rows", label, THREADS, full.measured(), "ops/s", null, Double.NaN,
                size + "; " + walNote(full)).compare("empty table", empty.measured()));

        // Old keys: any loaded record still live after the replay window, drawn over the whole table so
        // that most claims read index and heap pages no recent claim touched.
        long nowMillis;
        try (Connection c = ds.getConnection(); Statement st = c.createStatement()) {
            nowMillis = db.nowMillis(st);
        }
        long liveRows = total - expired;
        long margin = Math.max(0, nowMillis + Duration.ofMinutes(5).toMillis() - loaded.now() - FIRST_EXPIRY);
        long firstLive = Math.min(total, expired + 1 + (long) Math.ceil((double) margin * liveRows / SPREAD));
        Bench.progress("scale " + label + ": replays of old keys at full size");
        Measured replayFull = StoreBench.replays(store, THREADS, options.warmup, options.duration,
                random -> "k" + random.nextLong(firstLive, total + 1));
        rows.add(new Row("scale", "replay of an old key, " + millions(count) + " rows", label, THREADS, replayFull, "ops/s", null,
                Double.NaN, String.format(Locale.ROOT, "keys drawn at random over %,d loaded records", total - firstLive + 1))
                .compare("empty table", replayEmpty));

        Bench.progress("scale " + label + ": purging the expired hour");
        Purged purged = purge.run();
        Wal purgeWal = wal(db, ds, purged.logFrom(), purged.logTo());
        Measured purgeRate = new Measured(purged.rows(), purged.millis() / 1000.0, Double.NaN, Double.NaN, 0, 1);
        String vacuum;
        try (Connection c = ds.getConnection(); Statement st = c.createStatement()) {
            vacuum = db.vacuumState(st, table);
        }
        rows.add(new Row("scale", "purge of the expired hour", label, 1, purgeRate, "rows/s", null, Double.NaN,
                String.format(Locale.ROOT, "%,d rows in %,d ms, %,d B of %s", purged.rows(), purged.millis(), purgeWal.bytes(),
                        purgeWal.what())
                        + (vacuum == null ? "" : "; then " + vacuum)));

        // The same purge again, of an hour loaded anew, while 8 threads claim+complete.
        Bench.progress("scale " + label + ": loading another expired hour, " + expired + " records");
        try (Connection c = ds.getConnection(); Statement st = c.createStatement()) {
            if (table.equals(PARTITIONED)) {
                db.expiredHourPartition(st, table, loaded.expiredFrom(), loaded.hourStart());
            }
            db.insert(st, table, total + 1, total + expired, loaded.now(), expiredExpiry(loaded));
            db.analyze(st, table);
        }
        Bench.progress("scale " + label + ": purging it under load, " + THREADS + " threads claim+complete");
        rows.addAll(purgeUnderLoad(db, ds, store, table, label, purge));
        return rows;
    }

    private static String walNote(Loop loop) {
        return String.format(Locale.ROOT, "%,d B of %s a claim+complete", loop.walPerOp(), loop.wal().what());
    }

    /** Claim+complete of new keys, 8 threads, with the log written per operation (the server's whole log: others' writes count too). */
    private Loop claimCompletes(Database db, HikariDataSource ds, JdbcIdempotencyStore store) throws Exception {
        LongAdder all = new LongAdder();
        long before = logPosition(db, ds);
        Measured m = LoadLoop.run(THREADS, options.warmup, options.duration, t -> {
            SplittableRandom random = new SplittableRandom(ThreadLocalRandom.current().nextLong());
            return () -> {
                StoreBench.claimAndComplete(store, StoreBench.newKey(random));
                all.increment();
            };
        });
        return new Loop(m, wal(db, ds, before, logPosition(db, ds)), all.sum());
    }

    /**
     * 8 threads claim+complete new keys: a warm-up, a window before the purge, then the purge runs; the
     * claims that overlapped it are its "during" line. On PostgreSQL the table-level locks are sampled
     * while it runs.
     */
    private List<Row> purgeUnderLoad(Database db, HikariDataSource ds, JdbcIdempotencyStore store, String table, String label, Purge purge)
            throws Exception {
        // 0: the "before" window's start, 1: the purge's start, 2: its end (nanoTime; MAX_VALUE until set).
        AtomicLongArray marks = new AtomicLongArray(new long[] {Long.MAX_VALUE, Long.MAX_VALUE, Long.MAX_VALUE});
        List<Latencies> before = new CopyOnWriteArrayList<>();
        List<Latencies> during = new CopyOnWriteArrayList<>();
        AtomicBoolean stop = new AtomicBoolean();
        AtomicReference<Throwable> loadFailed = new AtomicReference<>();
        Thread load = new Thread(() -> {
            try {
                LoadLoop.run(THREADS, Duration.ZERO, Duration.ofHours(1), t -> {
                    Latencies b = new Latencies();
                    Latencies d = new Latencies();
                    before.add(b);
                    during.add(d);
                    SplittableRandom random = new SplittableRandom(ThreadLocalRandom.current().nextLong());
                    return () -> {
                        long s = System.nanoTime();
                        StoreBench.claimAndComplete(store, StoreBench.newKey(random));
                        long e = System.nanoTime();
                        if (s < marks.get(0)) {
                            return;
                        }
                        if (e < marks.get(1)) {
                            b.add(e - s);
                        } else if (s <= marks.get(2)) {
                            d.add(e - s);
                        }
                    };
                }, new ArrayList<>(), stop::get);
            } catch (Throwable e) {
                loadFailed.set(e);
            }
        }, "bench-scale-load");
        load.setDaemon(true);
        load.start();
        Set<String> locks = new ConcurrentSkipListSet<>();
        Purged purged;
        long beforeNanos = options.duration.toNanos();
        try {
            marks.set(0, System.nanoTime() + options.warmup.toNanos());
            // The measured window before the purge: the bench's own clock, nothing to wait for.
            Thread.sleep(options.warmup.toMillis() + options.duration.toMillis());
            if (loadFailed.get() != null) {
                throw new IllegalStateException("the load before the purge failed", loadFailed.get());
            }
            AtomicBoolean purging = new AtomicBoolean(true);
            Thread sampler = new Thread(() -> sampleLocks(db, ds, table, purging, locks), "bench-scale-locks");
            sampler.setDaemon(true);
            sampler.start();
            marks.set(1, System.nanoTime());
            try {
                purged = purge.run();
            } finally {
                marks.set(2, System.nanoTime());
                purging.set(false);
                sampler.join();
            }
        } finally {
            stop.set(true);
            load.join();
        }
        if (loadFailed.get() != null) {
            throw new IllegalStateException("the load during the purge failed", loadFailed.get());
        }
        Measured b = measured(before, beforeNanos);
        Measured d = measured(during, marks.get(2) - marks.get(1));
        String lockNote = locks.isEmpty() ? ""
                : "; table locks seen while it ran: " + (locks.equals(Set.of(CLAIMS_ONLY)) ? "only the claims' own"
                        : String.join(", ", locks.stream().filter(l -> !l.equals(CLAIMS_ONLY)).toList()) + " (and the claims' own)");
        List<Row> rows = new ArrayList<>();
        rows.add(new Row("scale", "claim+complete, before the purge", label, THREADS, b, "ops/s", null, Double.NaN, null));
        rows.add(new Row("scale", "claim+complete, during the purge", label, THREADS, d, "ops/s", null, Double.NaN,
                String.format(Locale.ROOT, "p99 %.2f x before (%,d claims overlapped the purge);"
                        + " the purge: %,d rows in %,d ms (its WAL: the quiet purge's line)", d.p99Millis() / b.p99Millis(), d.ops(), purged.rows(), purged.millis()) + lockNote).compare("before the purge", b));
        return rows;
    }

    private static Measured measured(List<Latencies> latencies, long nanos) {
        long ops = 0;
        for (Latencies l : latencies) {
            ops += l.size();
        }
        double[] p = Latencies.percentiles(latencies);
        return new Measured(ops, nanos / 1e9, p[0], p[1], 0, 1);
    }

    /** What the claims themselves take on the table and its partitions, granted: summed up as one line, not listed. */
    private static final String CLAIMS_ONLY = "claims' own";
    private static final Set<String> CLAIMS_MODES = Set.of("AccessShareLock", "RowShareLock", "RowExclusiveLock");

    /**
     * Table-level locks on the table's relations, every few milliseconds while the purge runs; a failed
     * sample is a missing sample. The modes claims take themselves, granted, are one entry: what is
     * left is the purge's own locks and anyone made to wait.
     */
    private static void sampleLocks(Database db, HikariDataSource ds, String table, AtomicBoolean purging, Set<String> seen) {
        try (Connection c = ds.getConnection(); Statement st = c.createStatement()) {
            while (purging.get()) {
                List<String> now = db.locks(st, table);
                if (now.isEmpty() && !(db instanceof PostgresTables)) {
                    return;
                }
                for (String lock : now) {
                    String[] f = lock.split(" ");
                    seen.add(f.length == 2 && CLAIMS_MODES.contains(f[1]) ? CLAIMS_ONLY : lock);
                }
                LockSupport.parkNanos(5_000_000);
            }
        } catch (SQLException e) {
            seen.add("(sampling failed: " + e.getMessage() + ")");
        }
    }

    /**
     * Completed records straight into the table, one statement: {@code expired} of them with expiries
     * in the hour before the first partition (a partition of their own on the partitioned table, made
     * here as maintenance would have made it an hour ago), the rest spread over the next 23 hours.
     */
    private Loaded load(Database db, HikariDataSource ds, String table, long rows, long expired) throws SQLException {
        try (Connection c = ds.getConnection(); Statement st = c.createStatement()) {
            long now = db.nowMillis(st);
            long width = WIDTH.toMillis();
            long hourStart = Math.floorDiv(now, width) * width;
            long expiredFrom = hourStart - width;
            Loaded loaded = new Loaded(now, expiredFrom, hourStart);
            if (table.equals(PARTITIONED)) {
                db.expiredHourPartition(st, table, expiredFrom, hourStart);
            }
            db.insert(st, table, 1, rows, now, "CASE WHEN g <= " + expired + " THEN " + expiredExpiry(loaded)
                    + " ELSE " + (now + FIRST_EXPIRY) + " + (g - " + expired + ") * " + SPREAD + " / " + Math.max(1, rows - expired) + " END");
            db.analyze(st, table);
            return loaded;
        }
    }

    /** An expiry inside the expired hour, by row number. */
    private static String expiredExpiry(Loaded loaded) {
        return "(" + loaded.expiredFrom() + " + (g % " + (WIDTH.toMillis() - 1) + "))";
    }

    private static Purged purgeRowByRow(Database db, HikariDataSource ds, JdbcIdempotencyStore store) throws SQLException {
        long walBefore = logPosition(db, ds);
        long started = System.nanoTime();
        long total = sweepUntilShort(store);
        return new Purged(total, (System.nanoTime() - started) / 1_000_000, walBefore, logPosition(db, ds));
    }

    /**
     * One run of the Sweeper, the sweeper's own loop, unbounded in batches: until a batch comes back
     * short. On a table of tens of millions, records go on expiring during the purge (about 580 a
     * second at 50 M over 24 h), so a loop until a batch finds none would never end.
     */
    static int sweepUntilShort(Purgeable table) {
        return Sweeper.builder(table).batchSize(PURGE_BATCH).maxBatchesPerRun(Integer.MAX_VALUE).build().sweepOnce();
    }

    private static Purged purgeByDrop(Database db, HikariDataSource ds, RetentionPartitions partitions) throws SQLException {
        long walBefore = logPosition(db, ds);
        long started = System.nanoTime();
        RetentionPartitions.Maintenance done = partitions.maintain();
        return new Purged(done.rowsDropped(), (System.nanoTime() - started) / 1_000_000, walBefore, logPosition(db, ds));
    }

    private static long logPosition(Database db, HikariDataSource ds) throws SQLException {
        try (Connection c = ds.getConnection(); Statement st = c.createStatement()) {
            return db.logPosition(st);
        }
    }

    /** Scope, fingerprint and headers as the store writes them for the bench's claims: a loaded record replays like a claimed one. */
    private static final String SCOPE = literal(StoreBench.SCOPE.value());
    private static final String FINGERPRINT = literal(StoreBench.FINGERPRINT.value());
    private static final String HEADERS = literal(StoreBench.STORED_HEADERS);

    private static String literal(String s) {
        if (s.indexOf('\\') >= 0) {
            throw new IllegalArgumentException("a value with a backslash is not written as a literal here");
        }
        return "'" + s.replace("'", "''") + "'";
    }

    /** The columns every load writes, in the order of {@link Database#insert}'s SELECT. */
    static final String COLUMNS = "(scope, idem_key, fingerprint, state, token, attempt, lease_until, expires_at, created_at, status, headers, body)";

    private static final class PostgresTables implements Database {
        private final Postgres pg;

        PostgresTables(Postgres pg) {
            this.pg = pg;
        }

        @Override
        public String product() {
            return "PostgreSQL";
        }

        @Override
        public HikariDataSource pool(int size) {
            return pg.pool(size);
        }

        @Override
        public long nowMillis(Statement st) throws SQLException {
            return queryLong(st, "SELECT (extract(epoch FROM clock_timestamp()) * 1000)::bigint");
        }

        @Override
        public void expiredHourPartition(Statement st, String table, long from, long to) throws SQLException {
            st.execute("CREATE TABLE " + table + "_expired PARTITION OF " + table + " FOR VALUES FROM (" + from + ") TO (" + to + ")");
        }

        @Override
        public void insert(Statement st, String table, long from, long to, long now, String expiry) throws SQLException {
            st.execute("INSERT INTO " + table + " " + COLUMNS
                    + " SELECT " + SCOPE + ", 'k' || g, " + FINGERPRINT + ", 1, g, 1, e - 1, e, " + now + ", 201, " + HEADERS + ","
                    + " decode(repeat('ab', 100), 'hex')"
                    + " FROM (SELECT g, " + expiry + " AS e FROM generate_series(CAST(" + from + " AS bigint), " + to + ") AS g) AS s");
        }

        @Override
        public void analyze(Statement st, String table) throws SQLException {
            st.execute("ANALYZE " + table);
        }

        @Override
        public long totalBytes(Statement st, String table) throws SQLException {
            // A partitioned table's own size is 0: its partitions' sizes add up (pg_partition_tree lists none of a plain table).
            return queryLong(st, "SELECT CASE WHEN c.relkind = 'p' THEN (SELECT sum(pg_total_relation_size(t.relid)) FROM pg_partition_tree(c.oid) t)"
                    + " ELSE pg_total_relation_size(c.oid) END::bigint FROM pg_class c WHERE c.oid = '" + table + "'::regclass");
        }

        @Override
        public long logPosition(Statement st) throws SQLException {
            return queryLong(st, "SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')::bigint");
        }

        /** Whether pg_walinspect could be had in the bench's database (a contrib extension; a superuser creates it). */
        private Boolean walinspect;

        /**
         * pg_walinspect's records between the positions that touch a relation of the bench's own
         * database (its only tables are the scale part's), plus the commits of their transactions.
         */
        @Override
        public long ownLogBytes(Statement st, long from, long to) throws SQLException {
            if (walinspect == null) {
                try {
                    st.execute("CREATE EXTENSION IF NOT EXISTS pg_walinspect");
                    walinspect = true;
                } catch (SQLException e) {
                    walinspect = false;
                }
            }
            if (!walinspect || to <= from) {
                return walinspect ? 0 : -1;
            }
            String mine = "block_ref LIKE '% rel %/' || (SELECT oid FROM pg_database WHERE datname = current_database()) || '/%'";
            return queryLong(st, "WITH r AS (SELECT xid::text::bigint AS x, resource_manager, record_length, block_ref"
                    + " FROM pg_get_wal_records_info('" + lsn(from) + "', '" + lsn(to) + "')),"
                    + " m AS (SELECT DISTINCT x FROM r WHERE x <> 0 AND " + mine + ")"
                    + " SELECT coalesce(sum(record_length), 0)::bigint FROM r WHERE " + mine
                    + " OR (resource_manager = 'Transaction' AND x IN (SELECT x FROM m))");
        }

        private static String lsn(long bytes) {
            return String.format(Locale.ROOT, "%X/%X", bytes >>> 32, bytes & 0xFFFFFFFFL);
        }

        @Override
        public String dataDirectory(Statement st) throws SQLException {
            return queryString(st, "SHOW data_directory");
        }

        /** pg_locks' relation locks on the table and its partitions (not their indexes), held or awaited by other sessions. */
        @Override
        public List<String> locks(Statement st, String table) throws SQLException {
            List<String> out = new ArrayList<>();
            try (ResultSet rs = st.executeQuery("SELECT DISTINCT c.relname, l.mode, l.granted FROM pg_locks l JOIN pg_class c ON c.oid = l.relation"
                    + " WHERE l.locktype = 'relation' AND l.pid <> pg_backend_pid() AND c.relkind IN ('r', 'p')"
                    + " AND (c.relname = '" + table + "' OR c.relname LIKE '" + table + "\\_%')")) {
                while (rs.next()) {
                    out.add(rs.getString(1) + " " + rs.getString(2) + (rs.getBoolean(3) ? "" : " (waited)"));
                }
            }
            return out;
        }

        @Override
        public String vacuumState(Statement st, String table) throws SQLException {
            // The purging session's counts reach the statistics when it next goes idle: a moment, not a wait.
            String autovacuum = queryString(st, "SHOW autovacuum");
            try (ResultSet rs = st.executeQuery("SELECT n_dead_tup, last_autovacuum, autovacuum_count FROM pg_stat_user_tables"
                    + " WHERE relname = '" + table + "'")) {
                if (!rs.next()) {
                    return "autovacuum " + autovacuum;
                }
                return String.format(Locale.ROOT, "autovacuum %s, %,d dead rows, last autovacuum %s (%d runs)", autovacuum, rs.getLong(1),
                        rs.getString(2) == null ? "never" : rs.getString(2), rs.getLong(3));
            }
        }
    }

    /**
     * MariaDB, in a database of the run's own ({@code idem_bench_<pid>}, dropped at the end). Rows come
     * from the Sequence engine's {@code seq_1_to_N}; sizes are InnoDB's data and index lengths after
     * {@code ANALYZE TABLE} (estimates, as the server keeps them); the log position is InnoDB's redo LSN.
     */
    private static final class MariadbTables implements Database, AutoCloseable {
        private final String admin;
        private final String database = "idem_bench_scale_" + ProcessHandle.current().pid();

        MariadbTables(String admin) throws SQLException {
            this.admin = admin;
            try (Connection c = java.sql.DriverManager.getConnection(admin); Statement st = c.createStatement()) {
                st.execute("DROP DATABASE IF EXISTS " + database);
                st.execute("CREATE DATABASE " + database);
            }
        }

        @Override
        public String product() {
            return "MariaDB";
        }

        @Override
        public HikariDataSource pool(int size) {
            return OwnServerBench.mariadbPool(OwnServerBench.withDatabase(admin, database), size);
        }

        @Override
        public long nowMillis(Statement st) throws SQLException {
            return queryLong(st, "SELECT CAST(UNIX_TIMESTAMP(NOW(3)) * 1000 AS SIGNED)");
        }

        /** The first partition (no lower bound) split at {@code to}: the expired hour below, the live rows above. */
        @Override
        public void expiredHourPartition(Statement st, String table, long from, long to) throws SQLException {
            String first;
            long bound;
            try (ResultSet rs = st.executeQuery("SELECT PARTITION_NAME, PARTITION_DESCRIPTION FROM information_schema.PARTITIONS"
                    + " WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = '" + table + "' ORDER BY PARTITION_ORDINAL_POSITION LIMIT 1")) {
                rs.next();
                first = rs.getString(1);
                bound = Long.parseLong(rs.getString(2));
            }
            if (bound <= to) {
                throw new IllegalStateException("the first partition ends at " + bound + ", not after the expired hour's end " + to);
            }
            st.execute("ALTER TABLE " + table + " REORGANIZE PARTITION " + first + " INTO (PARTITION " + table + "_expired VALUES LESS THAN ("
                    + to + "), PARTITION " + first + " VALUES LESS THAN (" + bound + "))");
        }

        @Override
        public void insert(Statement st, String table, long from, long to, long now, String expiry) throws SQLException {
            st.execute("INSERT INTO " + table + " " + COLUMNS
                    + " SELECT " + SCOPE + ", CONCAT('k', g), " + FINGERPRINT + ", 1, g, 1, e - 1, e, " + now + ", 201, " + HEADERS + ","
                    + " UNHEX(REPEAT('ab', 100))"
                    + " FROM (SELECT g, " + expiry + " AS e FROM (SELECT seq AS g FROM seq_" + from + "_to_" + to + ") AS n) AS s");
        }

        @Override
        public void analyze(Statement st, String table) throws SQLException {
            st.execute("ANALYZE TABLE " + table);
        }

        @Override
        public long totalBytes(Statement st, String table) throws SQLException {
            return queryLong(st, "SELECT CAST(SUM(DATA_LENGTH + INDEX_LENGTH) AS SIGNED) FROM information_schema.PARTITIONS"
                    + " WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = '" + table + "'");
        }

        @Override
        public long logPosition(Statement st) throws SQLException {
            try (ResultSet rs = st.executeQuery("SHOW GLOBAL STATUS LIKE 'Innodb_lsn_current'")) {
                return rs.next() ? rs.getLong(2) : 0;
            }
        }

        /** InnoDB's redo carries no database or table a status variable could sum by: not told apart. */
        @Override
        public long ownLogBytes(Statement st, long from, long to) {
            return -1;
        }

        @Override
        public String dataDirectory(Statement st) throws SQLException {
            return queryString(st, "SELECT @@datadir");
        }

        /** MariaDB shows metadata locks only with its metadata_lock_info plugin: not sampled. */
        @Override
        public List<String> locks(Statement st, String table) {
            return List.of();
        }

        /** Deleted rows wait for InnoDB's purge threads: the history list is what they have left. */
        @Override
        public String vacuumState(Statement st, String table) throws SQLException {
            try (ResultSet rs = st.executeQuery("SHOW GLOBAL STATUS LIKE 'Innodb_history_list_length'")) {
                return rs.next() ? String.format(Locale.ROOT, "InnoDB history list length %,d", rs.getLong(2)) : null;
            }
        }

        @Override
        public void close() throws SQLException {
            try (Connection c = java.sql.DriverManager.getConnection(admin); Statement st = c.createStatement()) {
                st.execute("DROP DATABASE IF EXISTS " + database);
            }
        }
    }

    private static long count(HikariDataSource ds, String table) throws SQLException {
        try (Connection c = ds.getConnection(); Statement st = c.createStatement()) {
            return queryLong(st, "SELECT count(*) FROM " + table);
        }
    }

    static long queryLong(Statement st, String sql) throws SQLException {
        try (ResultSet rs = st.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private static String queryString(Statement st, String sql) throws SQLException {
        try (ResultSet rs = st.executeQuery(sql)) {
            return rs.next() ? rs.getString(1) : null;
        }
    }

    static String millions(long rows) {
        return rows >= 1_000_000 ? String.format(Locale.ROOT, "%.0f M", rows / 1e6) : String.format(Locale.ROOT, "%,d", rows);
    }
}
