package dev.idem.jdbc;

import dev.idem.jdbc.internal.Dialects;
import dev.idem.jdbc.internal.ServerDurability;
import dev.idem.jdbc.support.StoreCalls;
import dev.idem.jdbc.support.Tables;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Objects;
import javax.sql.DataSource;

/**
 * What every idem JDBC component's builder settles the same way: the database, its dialect and the
 * component's table name. Each component's {@code Builder} adds its own settings and its {@code build()}.
 *
 * @param <B> the component's builder, which the setters return
 */
public abstract class JdbcComponentBuilder<B extends JdbcComponentBuilder<B>> {
    private final DataSource dataSource;
    private Dialect dialect;
    private String tableName;
    private DurabilityCheck durabilityCheck = DurabilityCheck.REQUIRE_DURABLE;

    /**
     * @param dialect          the dialect, or null to detect it at {@code build()}
     * @param defaultTableName the component's table when {@link #tableName(String)} is not called
     */
    protected JdbcComponentBuilder(DataSource dataSource, Dialect dialect, String defaultTableName) {
        this.dataSource = Objects.requireNonNull(dataSource, "dataSource is null");
        this.dialect = dialect;
        this.tableName = defaultTableName;
    }

    /** A component in {@code store}'s database, with the store's dialect. */
    protected JdbcComponentBuilder(JdbcIdempotencyStore store, String defaultTableName) {
        this(Objects.requireNonNull(store, "store is null").dataSource(), store.dialect(), defaultTableName);
    }

    /** Default: detected from the database's product name at {@code build()}. */
    public B dialect(Dialect dialect) {
        this.dialect = Objects.requireNonNull(dialect, "dialect is null");
        return self();
    }

    /**
     * The component's table (its default is named in the component's documentation). A lower-case
     * SQL identifier of at most 48 characters.
     */
    public B tableName(String tableName) {
        this.tableName = Tables.checkName(tableName);
        return self();
    }

    /**
     * What {@code build()} does about database settings that can lose acknowledged writes. Default
     * {@link DurabilityCheck#REQUIRE_DURABLE}: refuses a server that can lose them on its own
     * ({@code fsync}, {@code synchronous_commit} off, {@code innodb_flush_log_at_trx_commit} …) and
     * warns about a primary whose standbys are all asynchronous.
     */
    public B durabilityCheck(DurabilityCheck durabilityCheck) {
        this.durabilityCheck = Objects.requireNonNull(durabilityCheck, "durabilityCheck is null");
        return self();
    }

    public DataSource dataSource() {
        return dataSource;
    }

    /** The dialect set, or null until {@code build()} detects it. */
    public Dialect configuredDialect() {
        return dialect;
    }

    public String tableName() {
        return tableName;
    }

    /**
     * The dialect set, or the one detected on a connection of the data source; on SQLite, after
     * checking the settings idem relies on; then the durability check.
     *
     * @param component how a failure to connect names the component, e.g. "JDBC inbox"
     * @throws dev.idem.StoreException if the database cannot be reached
     * @throws IllegalStateException   if SQLite lacks WAL, synchronous=FULL or a busy timeout, or the
     *                                 database fails the {@linkplain #durabilityCheck durability check}
     */
    protected Dialect resolveDialect(String component) {
        return StoreCalls.atBuild(dataSource, component, c -> resolveDialect(c, component));
    }

    /** {@link #resolveDialect(String)} on a connection the caller holds. */
    protected Dialect resolveDialect(Connection c, String component) throws SQLException {
        Dialect chosen = Dialects.resolve(c, dialect);
        ServerDurability.check(c, durabilityCheck, component);
        return chosen;
    }

    @SuppressWarnings("unchecked")
    private B self() {
        return (B) this;
    }
}
