package dev.idem.kafka;

import dev.idem.StoreException;
import dev.idem.jdbc.Dialect;
import dev.idem.kafka.internal.SqlFiles;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import javax.sql.DataSource;
import org.apache.kafka.common.TopicPartition;

/**
 * Consumed Kafka offsets kept in the database, per consumer group, topic and partition: the
 * {@linkplain IdempotentKafkaConsumer.Builder#offsetsInDatabase offsets-in-database mode} of the
 * idempotent consumer writes a partition's next offset in the <b>same transaction</b> as the inbox
 * claims and the business writes, and seeks to it when the partition is assigned; no offset is ever
 * committed to Kafka. A crash at any point leaves offsets and effects consistent: both committed, or
 * neither.
 *
 * <pre>{@code
 * KafkaOffsetStore offsets = KafkaOffsetStore.builder(dataSource).build();
 * offsets.migrate();                       // or run V1__create_idem_kafka_offset.sql by hand
 * }</pre>
 *
 * <p>The table ({@code idem_kafka_offset} by default) is created by the dialect's numbered migration
 * in {@code dev/idem/kafka/<postgresql|sqlite>/}, and its history is kept in
 * {@code <table>_schema_history}, as idem-jdbc's components do. Writes are upserts
 * ({@code INSERT … ON CONFLICT … DO UPDATE}); the last write wins, as with a Kafka commit. Thread-safe.
 */
public final class KafkaOffsetStore {
    /** The default table name; the SQL files are written with it. */
    public static final String DEFAULT_TABLE = "idem_kafka_offset";

    private static final List<String> MIGRATIONS = List.of("V1__create_idem_kafka_offset");

    private final DataSource dataSource;
    private final Dialect dialect;
    private final String tableName;
    private final Map<String, String> sql;

    private KafkaOffsetStore(DataSource dataSource, Dialect dialect, String tableName) {
        this.dataSource = dataSource;
        this.dialect = dialect;
        this.tableName = tableName;
        this.sql = SqlFiles.statements(folder(dialect) + "offsets.sql", DEFAULT_TABLE, tableName);
    }

    public static Builder builder(DataSource dataSource) {
        return new Builder(dataSource);
    }

    /**
     * Creates the offset table if its migrations have not run yet: each in its own transaction
     * under a lock (PostgreSQL: an advisory lock; SQLite: the write lock), safe when several
     * instances start together.
     */
    public void migrate() {
        try (Connection c = dataSource.getConnection()) {
            boolean autoCommit = c.getAutoCommit();
            try {
                for (int i = 0; i < MIGRATIONS.size(); i++) {
                    apply(c, i + 1, MIGRATIONS.get(i));
                }
            } finally {
                c.setAutoCommit(autoCommit);
            }
        } catch (SQLException e) {
            throw StoreException.failed(displayName(), "migrate", null, e);
        }
    }

    /**
     * Writes the next offsets of the given partitions in the caller's transaction; does not commit.
     *
     * @param nextOffsets partition to the offset of the next record to consume (the last processed one + 1)
     * @throws IllegalStateException if the connection is in auto-commit mode
     */
    public void write(Connection connection, String groupId, Map<TopicPartition, Long> nextOffsets) throws SQLException {
        Objects.requireNonNull(connection, "connection is null");
        checkGroup(groupId);
        Objects.requireNonNull(nextOffsets, "nextOffsets is null");
        if (connection.getAutoCommit()) {
            throw new IllegalStateException("offsets must be written in the caller's transaction, but the connection is in auto-commit mode");
        }
        if (nextOffsets.isEmpty()) {
            return;
        }
        try (PreparedStatement ps = connection.prepareStatement(sql.get("offset_write"))) {
            for (Map.Entry<TopicPartition, Long> e : nextOffsets.entrySet()) {
                long offset = Objects.requireNonNull(e.getValue(), "offset is null");
                if (offset < 0) {
                    throw new IllegalArgumentException("offset must be >= 0, was " + offset + " for " + e.getKey());
                }
                ps.setString(1, groupId);
                ps.setString(2, e.getKey().topic());
                ps.setInt(3, e.getKey().partition());
                ps.setLong(4, offset);
                ps.addBatch();
            }
            ps.executeBatch();
        }
    }

    /** The stored next offsets of those of {@code partitions} that have one; in a short transaction of its own. */
    public Map<TopicPartition, Long> read(String groupId, Collection<TopicPartition> partitions) {
        checkGroup(groupId);
        Objects.requireNonNull(partitions, "partitions is null");
        Set<String> topics = new HashSet<>();
        for (TopicPartition tp : partitions) {
            topics.add(tp.topic());
        }
        Map<TopicPartition, Long> out = new HashMap<>();
        try (Connection c = dataSource.getConnection()) {
            for (String topic : topics) {
                try (PreparedStatement ps = c.prepareStatement(sql.get("offset_read"))) {
                    ps.setString(1, groupId);
                    ps.setString(2, topic);
                    try (ResultSet rs = ps.executeQuery()) {
                        while (rs.next()) {
                            TopicPartition tp = new TopicPartition(topic, rs.getInt(1));
                            if (partitions.contains(tp)) {
                                out.put(tp, rs.getLong(2));
                            }
                        }
                    }
                }
            }
            if (!c.getAutoCommit()) {
                c.commit();
            }
        } catch (SQLException e) {
            throw StoreException.failed(displayName(), "read offsets of group '" + groupId + "'", null, e);
        }
        return out;
    }

    public Dialect dialect() {
        return dialect;
    }

    public String tableName() {
        return tableName;
    }

    @Override
    public String toString() {
        return "KafkaOffsetStore[" + dialect.displayName() + ", table=" + tableName + "]";
    }

    // ---- migrations ----------------------------------------------------------------------------------

    private void apply(Connection c, int version, String description) throws SQLException {
        String resource = folder(dialect) + description + ".sql";
        String script = SqlFiles.read(resource);
        if (script == null) {
            throw new IllegalStateException("migration " + resource + " is missing from the class path");
        }
        c.setAutoCommit(false);
        try {
            try (Statement st = c.createStatement()) {
                if (sql.containsKey("lock_migrations")) {
                    st.execute(sql.get("lock_migrations"));
                }
                st.execute(sql.get("create_history"));
                if (sql.containsKey("lock_history")) {
                    st.execute(sql.get("lock_history"));
                }
            }
            String history = tableName + "_schema_history";
            boolean applied;
            try (PreparedStatement ps = c.prepareStatement("SELECT 1 FROM " + history + " WHERE version = ?")) {
                ps.setInt(1, version);
                try (ResultSet rs = ps.executeQuery()) {
                    applied = rs.next();
                }
            }
            if (!applied) {
                try (Statement st = c.createStatement()) {
                    for (String statement : SqlFiles.scriptStatements(script)) {
                        st.execute(SqlFiles.rename(statement, DEFAULT_TABLE, tableName));
                    }
                }
                try (PreparedStatement ps = c.prepareStatement(
                        "INSERT INTO " + history + " (version, description, applied_at) VALUES (?, ?, ?)")) {
                    ps.setInt(1, version);
                    ps.setString(2, description.substring(description.indexOf("__") + 2));
                    ps.setLong(3, System.currentTimeMillis());
                    ps.executeUpdate();
                }
            }
            c.commit();
        } catch (SQLException | RuntimeException e) {
            c.rollback();
            throw e;
        } finally {
            c.setAutoCommit(true);
        }
    }

    private static String folder(Dialect dialect) {
        return "dev/idem/kafka/" + dialect.name().toLowerCase(Locale.ROOT) + "/";
    }

    private String displayName() {
        return dialect.displayName() + " Kafka offset store";
    }

    static String checkGroup(String groupId) {
        if (groupId == null || groupId.isEmpty() || groupId.length() > 255) {
            throw new IllegalArgumentException("group id must have 1-255 characters, was "
                    + (groupId == null ? "null" : groupId.length() + " characters"));
        }
        return groupId;
    }

    /** Settings of a {@link KafkaOffsetStore}; each setter validates its value. */
    public static final class Builder {
        private final DataSource dataSource;
        private Dialect dialect;
        private String tableName = DEFAULT_TABLE;

        private Builder(DataSource dataSource) {
            this.dataSource = Objects.requireNonNull(dataSource, "dataSource is null");
        }

        /** Default: detected from the database's product name at {@link #build()}. */
        public Builder dialect(Dialect dialect) {
            this.dialect = Objects.requireNonNull(dialect, "dialect is null");
            return this;
        }

        /** Default {@code idem_kafka_offset}. A lower-case SQL identifier of at most 48 characters. */
        public Builder tableName(String tableName) {
            this.tableName = SqlFiles.checkTableName(tableName);
            return this;
        }

        /** @throws StoreException if the dialect must be detected and the database cannot be reached */
        public KafkaOffsetStore build() {
            if (dialect != null) {
                return new KafkaOffsetStore(dataSource, dialect, tableName);
            }
            try (Connection c = dataSource.getConnection()) {
                return new KafkaOffsetStore(dataSource, Dialect.detect(c), tableName);
            } catch (SQLException e) {
                throw StoreException.failed("Kafka offset store", "connect", null, e);
            }
        }
    }
}
