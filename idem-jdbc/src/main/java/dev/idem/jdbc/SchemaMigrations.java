package dev.idem.jdbc;

import dev.idem.StoreException;
import dev.idem.jdbc.internal.Dialects;
import dev.idem.jdbc.support.Migrator;
import dev.idem.jdbc.support.SqlStatements;
import dev.idem.jdbc.internal.StartupRetry;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Pattern;
import javax.sql.DataSource;

/**
 * An application's own numbered SQL files, applied the way idem applies its own tables: each file once,
 * in order, under the database's migration lock, with its history in {@code <track>_schema_history}.
 * Several instances starting together on a fresh database therefore do not race on
 * {@code CREATE TABLE} (on PostgreSQL two concurrent {@code CREATE TABLE IF NOT EXISTS} can fail on
 * the catalog's unique index), and an instance starting while the database is briefly out of reach
 * waits for it, for a bounded time, instead of exiting.
 *
 * <pre>{@code
 * SchemaMigrations.builder(dataSource)
 *         .track("payment")                       // history: payment_schema_history
 *         .files(PaymentRepository.class)          // <its package>/postgresql/V1__create_payment.sql, …/sqlite/…
 *         .migration(1, "create_payment")
 *         .build()
 *         .migrate();
 * }</pre>
 *
 * The files are plain SQL (statements separated by {@code ;} at the end of a line), one folder per
 * dialect ({@code postgresql}, {@code sqlite}, {@code mariadb}) in the anchor class's package; a DBA
 * can run them by hand in version order. MariaDB commits DDL at once, so there a file's statements
 * should all be {@code IF NOT EXISTS}: a run stopped half way is then completed by the next.
 */
public final class SchemaMigrations {
    private static final Pattern TRACK = Pattern.compile("[a-z][a-z0-9_]{0,39}");
    private static final Pattern DESCRIPTION = Pattern.compile("[A-Za-z0-9_]{1,100}");

    private final DataSource dataSource;
    private final String track;
    private final Class<?> anchor;
    private final List<Migrator.Migration> migrations;
    private final Duration retryFor;

    private SchemaMigrations(Builder b) {
        this.dataSource = b.dataSource;
        this.track = b.track;
        this.anchor = b.anchor;
        this.migrations = List.copyOf(b.migrations);
        this.retryFor = b.retryFor;
    }

    public static Builder builder(DataSource dataSource) {
        return new Builder(dataSource);
    }

    /**
     * Applies the files not applied yet. While the database cannot be reached (connections refused,
     * dropped or timed out) it tries again, pausing longer each time, until the builder's
     * {@link Builder#retryFor retry time} is spent.
     *
     * @throws StoreException        if the database stayed out of reach for the retry time, or a file failed
     *                               (its statements rolled back where the dialect can; the message names the track)
     * @throws IllegalStateException if a dialect folder lacks a file
     */
    public void migrate() {
        migrate(dataSource, "migrations of " + track, retryFor, c -> {
            Dialect dialect = Dialects.resolve(c, null);
            SqlStatements sql = SqlStatements.load(dialect, track, Migrator.requiredStatements(dialect));
            SqlStatements.Source files = SqlStatements.Source.of(anchor);
            new Migrator(dialect, sql, files, files.folder(dialect), migrations, track, Map.of()).migrate(c);
        });
    }

    /** Work on one connection during start-up. */
    @FunctionalInterface
    interface Step {
        void run(Connection c) throws SQLException;
    }

    /** The one start-up path of idem's migrations and an application's: a connection per attempt, retried while out of reach. */
    static void migrate(DataSource dataSource, String what, Duration retryFor, Step step) {
        try {
            StartupRetry.run(what, retryFor, () -> {
                try (Connection c = dataSource.getConnection()) {
                    step.run(c);
                }
            });
        } catch (SQLException e) {
            throw StoreException.failed("JDBC " + what, "migrate", null, e);
        }
    }

    public static final class Builder {
        private final DataSource dataSource;
        private String track;
        private Class<?> anchor;
        private final List<Migrator.Migration> migrations = new ArrayList<>();
        private Duration retryFor = Duration.ofSeconds(60);

        private Builder(DataSource dataSource) {
            this.dataSource = Objects.requireNonNull(dataSource, "dataSource is null");
        }

        /**
         * The name the history table and the migration lock are kept under: lower-case letters, digits and
         * {@code _}, starting with a letter, at most 40 characters (for example the main table's name).
         */
        public Builder track(String track) {
            Objects.requireNonNull(track, "track is null");
            if (!TRACK.matcher(track).matches()) {
                throw new IllegalArgumentException("track must be lower-case letters, digits and '_', starting with a letter, "
                        + "at most 40 characters; was " + track.length() + " characters");
            }
            this.track = track;
            return this;
        }

        /** The class whose package folder holds the dialect folders with the numbered files. */
        public Builder files(Class<?> anchor) {
            this.anchor = Objects.requireNonNull(anchor, "anchor is null");
            return this;
        }

        /** The file {@code V<version>__<description>.sql}; versions must be added in increasing order. */
        public Builder migration(int version, String description) {
            Objects.requireNonNull(description, "description is null");
            if (version < 1) {
                throw new IllegalArgumentException("version must be 1 or more, was " + version);
            }
            if (!migrations.isEmpty() && version <= migrations.get(migrations.size() - 1).version()) {
                throw new IllegalArgumentException("versions must increase: " + version + " after "
                        + migrations.get(migrations.size() - 1).version());
            }
            if (!DESCRIPTION.matcher(description).matches()) {
                throw new IllegalArgumentException("description must be 1-100 letters, digits or '_' (it is the file name's second part)");
            }
            migrations.add(new Migrator.Migration(version, description, track == null ? "" : track));
            return this;
        }

        /**
         * How long {@link #migrate()} keeps trying while the database cannot be reached (default 60 s;
         * zero: one attempt).
         */
        public Builder retryFor(Duration retryFor) {
            Objects.requireNonNull(retryFor, "retryFor is null");
            if (retryFor.isNegative()) {
                throw new IllegalArgumentException("retryFor must not be negative, was " + retryFor);
            }
            this.retryFor = retryFor;
            return this;
        }

        /** @throws IllegalStateException if the track, the files or the migrations are missing */
        public SchemaMigrations build() {
            if (track == null) {
                throw new IllegalStateException("track is not set");
            }
            if (anchor == null) {
                throw new IllegalStateException("files is not set: name the class whose package holds the SQL folders");
            }
            if (migrations.isEmpty()) {
                throw new IllegalStateException("no migration is listed");
            }
            // Migrations listed before track(...) was called carry the track now.
            migrations.replaceAll(m -> new Migrator.Migration(m.version(), m.description(), track));
            return new SchemaMigrations(this);
        }
    }
}
