package dev.idem.spring;

import dev.idem.servlet.StoragePolicy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.springframework.beans.factory.InitializingBean;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.util.unit.DataSize;

/**
 * The {@code idem.*} settings of the starter. Every value is checked once bound: a bad one fails
 * startup with {@link InvalidConfigurationPropertyValueException}, which names the property.
 */
@ConfigurationProperties(prefix = "idem")
public class IdemProperties implements InitializingBean {
    /** Largest buffer the filter can hold (JVM arrays stop a little short of Integer.MAX_VALUE). */
    private static final long MAX_BYTES = Integer.MAX_VALUE - 8;

    /** Whether idem is configured at all: store, engine, filter, sweeper and meters. */
    private boolean enabled = true;

    /** The request header carrying the idempotency key. */
    private String headerName = "Idempotency-Key";

    /** HTTP methods whose requests the filter considers; others (GET, HEAD, OPTIONS, ...) pass through untouched. */
    private List<String> methods = new ArrayList<>(Arrays.asList("POST", "PATCH"));

    /**
     * Which endpoints are idempotent: 'annotated' covers handler methods with @Idempotent only; 'all'
     * covers every handler method (of a covered HTTP method), @Idempotent adjusting it.
     */
    private DefaultPolicy defaultPolicy = DefaultPolicy.ANNOTATED;

    /**
     * How long a running request holds its key between renewals; after a crash, a retry may take over
     * once it has passed.
     */
    private Duration lease = Duration.ofSeconds(30);

    /** How long a completed response is replayable; at least the lease. */
    private Duration retention = Duration.ofHours(24);

    /**
     * What a request finds when another with the same key is still running: 'reject' answers 409 with
     * Retry-After at once, 'wait' waits up to max-wait for its result.
     */
    private InFlight inFlight = InFlight.REJECT;

    /** With in-flight 'wait': how long a request waits for the running one's result before answering 409. */
    private Duration maxWait = Duration.ofSeconds(10);

    /**
     * Handler response statuses that are not stored for replay: the key is released and a retry runs
     * the handler again. Each entry is a status (429) or a class (5xx); 'none' (or no entry) stores every
     * status the engine stores (the starter's engine never stores a 5xx). Per endpoint:
     * '@Idempotent(notStored = ...)'.
     */
    private List<String> notStoredStatuses = new ArrayList<>(StoragePolicy.DEFAULT_NOT_STORED);

    /**
     * Retry-After of the answers to a failure of the idempotency store (503) or a lost lease (409),
     * in whole seconds, rounded up.
     */
    private Duration failureRetryAfter = Duration.ofSeconds(2);

    /** Largest request body accepted with an idempotency key; larger ones are answered 413. */
    private DataSize maxRequestBytes = DataSize.ofMegabytes(1);

    /**
     * Largest response body stored for replay; a larger one is sent in full but stored empty with
     * 'Idempotent-Body-Omitted: true'. Also the engine's limit, so the two always agree.
     */
    private DataSize maxResponseBytes = DataSize.ofMegabytes(1);

    /**
     * Where records live: 'jdbc' in a table on the application's DataSource, or 'redis' on the server
     * at idem.redis.url (needs dev.idem:idem-redis on the class path).
     */
    private Store store = Store.JDBC;

    /** Table of the JDBC store (a lower-case SQL identifier). */
    private String tableName = "idem_record";

    /**
     * Whether the JDBC store lets concurrent claims, and separately concurrent completions, share one
     * statement and one commit (no timer: a call alone goes straight through). auto: where the database
     * gains from it (SQLite; not PostgreSQL or MariaDB, where it measured slower); on; off: each call
     * commits on its own. true and false mean on and off.
     */
    private CoalesceCommits coalesceCommits = CoalesceCommits.AUTO;

    private final Redis redis = new Redis();

    private final Schema schema = new Schema();

    private final Sweeper sweeper = new Sweeper();

    private final Scope scope = new Scope();

    private final Filter filter = new Filter();

    /** Which endpoints the filter covers when they carry no @Idempotent. */
    public enum DefaultPolicy {
        /** Only handler methods (or controller classes) annotated with @Idempotent. */
        ANNOTATED,
        /** Every handler method whose HTTP method is covered. */
        ALL
    }

    /** The global in-flight policy. */
    public enum InFlight {
        /** Answer 409 with Retry-After at once. */
        REJECT,
        /** Wait up to max-wait for the result. */
        WAIT
    }

    /** Which store the starter builds. */
    public enum Store {
        /** A JdbcIdempotencyStore on the application's single DataSource. */
        JDBC,
        /** A RedisIdempotencyStore at idem.redis.url. */
        REDIS
    }

    /** Settings of the Redis store (idem.store=redis). */
    public static class Redis {
        /** The server: redis://[user:password@]host:port[/database], rediss:// for TLS, or redis-sentinel://. Ignored when idem.redis.cluster-nodes is set. */
        private String url = "redis://127.0.0.1:6379";

        /**
         * Nodes of a Redis Cluster to start from, as redis:// or rediss:// URIs (comma-separated); one
         * is enough, more survive one being down at startup. Their credentials, TLS and timeout apply
         * to every node. When set, the store runs on the cluster and idem.redis.url is ignored.
         */
        private List<String> clusterNodes = new ArrayList<>();

        /**
         * How many replicas must acknowledge each claim, checkpoint, completion and renewal (WAIT)
         * before it counts: 'auto' (1 on a cluster or a redis-sentinel:// URL, off on a standalone
         * server), 'off', or a number from 0 (off) to 16. Startup fails if a master has fewer connected
         * replicas.
         */
        private String ackReplicas = "auto";

        /** How long WAIT gives the replicas; a write not acknowledged in time fails as retryable. */
        private Duration ackTimeout = Duration.ofSeconds(1);

        /** Starts every key the store writes: 1 to 128 visible ASCII characters, no braces. */
        private String keyPrefix = "idem:";

        /**
         * 'require-aof': startup fails unless the server keeps records on disk (appendonly yes,
         * appendfsync always or everysec, no eviction). 'skip': no check, for a server known to persist
         * whose CONFIG command is disabled (managed Redis) or a throwaway test server.
         */
        private PersistenceCheck persistenceCheck = PersistenceCheck.REQUIRE_AOF;

        /** Whether startup checks that the server persists records. */
        public enum PersistenceCheck {
            /** Refuse a server that would forget records on restart. */
            REQUIRE_AOF,
            /** Do not check. */
            SKIP
        }

        public String getUrl() {
            return url;
        }

        public void setUrl(String url) {
            this.url = url;
        }

        public List<String> getClusterNodes() {
            return clusterNodes;
        }

        public void setClusterNodes(List<String> clusterNodes) {
            this.clusterNodes = clusterNodes;
        }

        public String getAckReplicas() {
            return ackReplicas;
        }

        public void setAckReplicas(String ackReplicas) {
            this.ackReplicas = ackReplicas;
        }

        public Duration getAckTimeout() {
            return ackTimeout;
        }

        public void setAckTimeout(Duration ackTimeout) {
            this.ackTimeout = ackTimeout;
        }

        public String getKeyPrefix() {
            return keyPrefix;
        }

        public void setKeyPrefix(String keyPrefix) {
            this.keyPrefix = keyPrefix;
        }

        public PersistenceCheck getPersistenceCheck() {
            return persistenceCheck;
        }

        public void setPersistenceCheck(PersistenceCheck persistenceCheck) {
            this.persistenceCheck = persistenceCheck;
        }
    }

    /** Schema settings. */
    public static class Schema {
        /** Whether to create or upgrade the store's table when the application starts. */
        private boolean initialize = true;

        /**
         * How long start-up keeps trying the migration while the database cannot be reached (refused,
         * dropped or timed-out connections), pausing longer each time, before it fails; zero: once.
         */
        private Duration retryFor = Duration.ofSeconds(60);

        public boolean isInitialize() {
            return initialize;
        }

        public void setInitialize(boolean initialize) {
            this.initialize = initialize;
        }

        public Duration getRetryFor() {
            return retryFor;
        }

        public void setRetryFor(Duration retryFor) {
            if (retryFor == null || retryFor.isNegative()) {
                throw new IllegalArgumentException("idem.schema.retry-for must be zero or positive, was " + retryFor);
            }
            this.retryFor = retryFor;
        }
    }

    /** Settings of idem's sweepers, which delete expired rows: the key store's records and the inbox's messages and attempt counters. */
    public static class Sweeper {
        /** Whether to run idem's sweepers (key store and inbox) with the application. */
        private boolean enabled = true;

        /** Time between sweeps. */
        private Duration interval = Duration.ofMinutes(1);

        /** Rows deleted per statement; keeps each delete short. */
        private int batchSize = 500;

        public boolean isEnabled() {
            return enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

        public Duration getInterval() {
            return interval;
        }

        public void setInterval(Duration interval) {
            this.interval = interval;
        }

        public int getBatchSize() {
            return batchSize;
        }

        public void setBatchSize(int batchSize) {
            this.batchSize = batchSize;
        }
    }

    /** Who a key belongs to. */
    public static class Scope {
        /**
         * Header whose value identifies the caller (e.g. X-Api-Key, Authorization); only its SHA-256
         * is stored. Empty: the authenticated user principal, or 'anonymous'.
         */
        private String credentialHeader = "";

        public String getCredentialHeader() {
            return credentialHeader;
        }

        public void setCredentialHeader(String credentialHeader) {
            this.credentialHeader = credentialHeader;
        }
    }

    /** Registration of the servlet filter. */
    public static class Filter {
        /**
         * Order of the filter among the servlet filters: early, but after Spring Security's filter
         * chain (-100) so the authenticated principal is known.
         */
        private int order = -90;

        public int getOrder() {
            return order;
        }

        public void setOrder(int order) {
            this.order = order;
        }
    }

    /** Checks every value, naming the property of the first bad one. */
    @Override
    public void afterPropertiesSet() {
        validate();
    }

    /**
     * Checks every value.
     *
     * @throws InvalidConfigurationPropertyValueException naming the first bad property and why
     */
    public void validate() {
        token("idem.header-name", headerName);
        if (methods == null || methods.isEmpty()) {
            throw invalid("idem.methods", methods, "name at least one HTTP method, e.g. POST,PATCH");
        }
        for (String method : methods) {
            token("idem.methods", method);
        }
        notNull("idem.default-policy", defaultPolicy);
        notNull("idem.store", store);
        notNull("idem.redis.persistence-check", redis.persistenceCheck);
        notNull("idem.in-flight", inFlight);
        positive("idem.lease", lease);
        if (lease.toMillis() < 1) {
            throw invalid("idem.lease", lease, "must be at least 1ms");
        }
        positive("idem.retention", retention);
        if (retention.compareTo(lease) < 0) {
            throw invalid("idem.retention", retention, "must not be shorter than idem.lease (" + lease + ")");
        }
        positive("idem.max-wait", maxWait);
        positive("idem.failure-retry-after", failureRetryAfter);
        try {
            storagePolicy();
        } catch (IllegalArgumentException e) {
            throw invalid("idem.not-stored-statuses", notStoredStatuses, e.getMessage());
        }
        bytes("idem.max-request-bytes", maxRequestBytes);
        bytes("idem.max-response-bytes", maxResponseBytes);
        if (tableName == null || !tableName.matches("[a-z_][a-z0-9_]{0,47}")) {
            throw invalid("idem.table-name", tableName, "must be a lower-case SQL identifier matching [a-z_][a-z0-9_]{0,47}");
        }
        positive("idem.sweeper.interval", sweeper.interval);
        if (sweeper.interval.toMillis() < 1) {
            throw invalid("idem.sweeper.interval", sweeper.interval, "must be at least 1ms");
        }
        if (sweeper.batchSize < 1 || sweeper.batchSize > 100_000) {
            throw invalid("idem.sweeper.batch-size", sweeper.batchSize, "must be between 1 and 100000");
        }
        String credential = scope.credentialHeader;
        if (credential != null && !credential.isEmpty()) {
            token("idem.scope.credential-header", credential);
        }
    }

    private static void token(String property, String value) {
        if (value == null || value.isEmpty()) {
            throw invalid(property, value, "must be a non-empty HTTP token");
        }
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            boolean tchar = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
                    || "!#$%&'*+-.^_`|~".indexOf(c) >= 0;
            if (!tchar) {
                throw invalid(property, value, "must be an HTTP token (character at position " + i + " is not allowed)");
            }
        }
    }

    private static void notNull(String property, Object value) {
        if (value == null) {
            throw invalid(property, null, "must be set");
        }
    }

    private static void positive(String property, Duration value) {
        if (value == null || value.isNegative() || value.isZero()) {
            throw invalid(property, value, "must be a positive duration");
        }
    }

    private static void bytes(String property, DataSize value) {
        if (value == null || value.isNegative() || value.toBytes() > MAX_BYTES) {
            throw invalid(property, value, "must be between 0B and " + MAX_BYTES + "B");
        }
    }

    private static InvalidConfigurationPropertyValueException invalid(String property, Object value, String reason) {
        return new InvalidConfigurationPropertyValueException(property, value, reason);
    }

    /**
     * The filter's {@link StoragePolicy} from {@code idem.not-stored-statuses}.
     *
     * @throws IllegalArgumentException if an entry is neither a status nor a class of them
     */
    public StoragePolicy storagePolicy() {
        return parseStoragePolicy(notStoredStatuses == null ? List.of() : notStoredStatuses);
    }

    /**
     * The storage policy of a list of statuses not to store, as {@code idem.not-stored-statuses} and
     * {@code @Idempotent(notStored = ...)} read it: {@link StoragePolicy#notStoring(java.util.Collection)},
     * with {@code none} alone meaning every status is stored.
     *
     * @throws IllegalArgumentException if an entry is neither a status nor a class of them
     */
    public static StoragePolicy parseStoragePolicy(List<String> notStored) {
        if (notStored.size() == 1 && notStored.get(0) != null && notStored.get(0).trim().equalsIgnoreCase("none")) {
            return StoragePolicy.storingAll();
        }
        return StoragePolicy.notStoring(notStored);
    }

    // ---- accessors ----------------------------------------------------------------------------

    public boolean isEnabled() {
        return enabled;
    }

    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    public String getHeaderName() {
        return headerName;
    }

    public void setHeaderName(String headerName) {
        this.headerName = headerName;
    }

    public List<String> getMethods() {
        return methods;
    }

    public void setMethods(List<String> methods) {
        this.methods = methods;
    }

    public DefaultPolicy getDefaultPolicy() {
        return defaultPolicy;
    }

    public void setDefaultPolicy(DefaultPolicy defaultPolicy) {
        this.defaultPolicy = defaultPolicy;
    }

    public Duration getLease() {
        return lease;
    }

    public void setLease(Duration lease) {
        this.lease = lease;
    }

    public Duration getRetention() {
        return retention;
    }

    public void setRetention(Duration retention) {
        this.retention = retention;
    }

    public InFlight getInFlight() {
        return inFlight;
    }

    public void setInFlight(InFlight inFlight) {
        this.inFlight = inFlight;
    }

    public Duration getMaxWait() {
        return maxWait;
    }

    public void setMaxWait(Duration maxWait) {
        this.maxWait = maxWait;
    }

    public List<String> getNotStoredStatuses() {
        return notStoredStatuses;
    }

    public void setNotStoredStatuses(List<String> notStoredStatuses) {
        this.notStoredStatuses = notStoredStatuses;
    }

    public Duration getFailureRetryAfter() {
        return failureRetryAfter;
    }

    public void setFailureRetryAfter(Duration failureRetryAfter) {
        this.failureRetryAfter = failureRetryAfter;
    }

    public DataSize getMaxRequestBytes() {
        return maxRequestBytes;
    }

    public void setMaxRequestBytes(DataSize maxRequestBytes) {
        this.maxRequestBytes = maxRequestBytes;
    }

    public DataSize getMaxResponseBytes() {
        return maxResponseBytes;
    }

    public void setMaxResponseBytes(DataSize maxResponseBytes) {
        this.maxResponseBytes = maxResponseBytes;
    }

    public Store getStore() {
        return store;
    }

    public void setStore(Store store) {
        this.store = store;
    }

    public String getTableName() {
        return tableName;
    }

    public void setTableName(String tableName) {
        this.tableName = tableName;
    }

    public CoalesceCommits getCoalesceCommits() {
        return coalesceCommits;
    }

    public void setCoalesceCommits(CoalesceCommits coalesceCommits) {
        this.coalesceCommits = coalesceCommits;
    }

    /** {@code idem.coalesce-commits}. */
    public enum CoalesceCommits {
        /** The dialect's choice: on for SQLite, off for PostgreSQL and MariaDB. */
        AUTO,
        /** Concurrent claims, and concurrent completions, share a statement and a commit. */
        ON,
        /** Each call commits on its own. */
        OFF
    }

    public Redis getRedis() {
        return redis;
    }

    public Schema getSchema() {
        return schema;
    }

    public Sweeper getSweeper() {
        return sweeper;
    }

    public Scope getScope() {
        return scope;
    }

    public Filter getFilter() {
        return filter;
    }
}
