package dev.idem.spring;

import dev.idem.StoragePolicy;
import dev.idem.jdbc.DurabilityCheck;
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
     * How long after its response's retention a completed key keeps a tombstone (its status and
     * completion time): a retry in that time is answered 410 key-expired and nothing runs. 0 (the
     * default) keeps none: the key is forgotten with its response. Costs two writes per completed key
     * and one read per new key.
     */
    private Duration tombstones = Duration.ZERO;

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
     * Where records live: 'jdbc' in a table on the application's DataSource, 'redis' on the server
     * at idem.redis.url (needs dev.idem:idem-redis on the class path), or 'nats-kv' in a JetStream
     * key-value bucket on the servers at idem.nats-kv.servers (needs dev.idem:idem-nats).
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

    /**
     * What the JDBC store and the inbox do at start about database settings that can lose acknowledged writes.
     * require-durable: refuses fsync, synchronous_commit or full_page_writes off on PostgreSQL, and
     * innodb_flush_log_at_trx_commit other than 1, sync_binlog other than 1 with the binary log on, or
     * innodb_doublewrite off on MariaDB; only warns about a primary whose standbys are all asynchronous.
     * require-synchronous-replication: refuses that too. warn: warns about everything. skip: reads nothing.
     */
    private DurabilityCheck durabilityCheck = DurabilityCheck.REQUIRE_DURABLE;

    /**
     * What creates idem's tables at start: 'idem' (idem's own migrator, each component's history in its
     * own table, e.g. idem_record_schema_history), 'flyway' (Flyway applies every idem file under
     * classpath:db/idem-migrations/postgresql, mariadb or sqlite, its history in idem_flyway_schema_history),
     * 'liquibase' (Liquibase applies db/idem-migrations/changelog-postgresql.xml, or the mariadb or sqlite
     * one) or 'none' (the application's own migrations create them). idem.schema.initialize=false means 'none'.
     */
    private Migrations migrations = Migrations.IDEM;

    private final Redis redis = new Redis();

    private final NatsKv natsKv = new NatsKv();

    private final Schema schema = new Schema();

    private final Sweeper sweeper = new Sweeper();

    private final Completer completer = new Completer();

    private final Jdbc jdbc = new Jdbc();

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
        REDIS,
        /** A NatsKvIdempotencyStore in a JetStream key-value bucket on the servers at idem.nats-kv.servers. */
        NATS_KV
    }

    /** Settings of the NATS JetStream key-value store (idem.store=nats-kv). */
    public static class NatsKv {
        /** The cluster's servers, as nats:// or tls:// URLs (comma-separated); the connection reconnects to a surviving one. */
        private List<String> servers = new ArrayList<>(List.of("nats://127.0.0.1:4222"));

        /** The bucket: 1 to 64 letters, digits, '_' or '-'. */
        private String bucket = "idem";

        /** Replicas of the bucket when the store creates it (it creates a missing bucket, file storage): 1 to 5. */
        private int replicas = 3;

        /** How long the bucket keeps an entry after its last write, when the store creates it; at least idem.retention plus idem.lease. */
        private Duration maxAge = Duration.ofDays(2);

        /** 'refuse': startup fails on a bucket with fewer replicas than the cluster can give, or memory storage. 'warn' logs instead; 'skip' does not check. */
        private ReplicationCheck replicationCheck = ReplicationCheck.REFUSE;

        /** How long each JetStream request waits for its answer; a call fails as retryable after this long. */
        private Duration requestTimeout = Duration.ofSeconds(2);

        /** What startup does about a bucket that would not survive the loss of a server. */
        public enum ReplicationCheck {
            /** Refuse it. */
            REFUSE,
            /** Log a warning. */
            WARN,
            /** Do not check. */
            SKIP
        }

        public List<String> getServers() {
            return servers;
        }

        public void setServers(List<String> servers) {
            this.servers = servers;
        }

        public String getBucket() {
            return bucket;
        }

        public void setBucket(String bucket) {
            this.bucket = bucket;
        }

        public int getReplicas() {
            return replicas;
        }

        public void setReplicas(int replicas) {
            this.replicas = replicas;
        }

        public Duration getMaxAge() {
            return maxAge;
        }

        public void setMaxAge(Duration maxAge) {
            this.maxAge = maxAge;
        }

        public ReplicationCheck getReplicationCheck() {
            return replicationCheck;
        }

        public void setReplicationCheck(ReplicationCheck replicationCheck) {
            this.replicationCheck = replicationCheck;
        }

        public Duration getRequestTimeout() {
            return requestTimeout;
        }

        public void setRequestTimeout(Duration requestTimeout) {
            this.requestTimeout = requestTimeout;
        }
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
         * Whether each record keeps its scope and idempotency key, so that the admin API lists the keys
         * stuck past their lease by name. Off: only the keys' digests reach Redis, and those lists are
         * refused (looking at and releasing a named key work either way).
         */
        private boolean keepKeys = false;

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

        public boolean isKeepKeys() {
            return keepKeys;
        }

        public void setKeepKeys(boolean keepKeys) {
            this.keepKeys = keepKeys;
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

    /**
     * Settings of the completer, which finishes the records of @Idempotent(completable = true) routes whose
     * client never came back, by running the stored request through the DispatcherServlet inside the application.
     */
    public static class Completer {
        /**
         * Whether to run the completer when a route is @Idempotent(completable = true). With false none runs, but
         * completable routes still store their requests, so that another instance's completer (or a later release's)
         * can finish them.
         */
        private boolean enabled = true;

        /** How long after a record's lease ended the completer leaves it to its client's retry. */
        private Duration delay = Duration.ofMinutes(1);

        /** Time between the completer's polls for abandoned records. */
        private Duration pollInterval = Duration.ofSeconds(10);

        /** A record's attempts in all (its first owner's, retries', the completer's) before the completer parks it (2-1000). */
        private int maxAttempts = 5;

        public boolean isEnabled() {
            return enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

        public Duration getDelay() {
            return delay;
        }

        public void setDelay(Duration delay) {
            this.delay = delay;
        }

        public Duration getPollInterval() {
            return pollInterval;
        }

        public void setPollInterval(Duration pollInterval) {
            this.pollInterval = pollInterval;
        }

        public int getMaxAttempts() {
            return maxAttempts;
        }

        public void setMaxAttempts(int maxAttempts) {
            this.maxAttempts = maxAttempts;
        }
    }

    /** Settings of the JDBC store's table (idem.store=jdbc). */
    public static class Jdbc {
        private final Partitions partitions = new Partitions();

        public Partitions getPartitions() {
            return partitions;
        }

        /**
         * Retention by partition (PostgreSQL, MariaDB): the table range-partitioned by expiry, purged by dropping
         * partitions past retention instead of deleting rows.
         */
        public static class Partitions {
            /**
             * Span of expiry times per partition, e.g. 6h; 0 (the default): one unpartitioned table,
             * purged row by row. An expired record waits up to this long for its partition's drop.
             */
            private Duration width = Duration.ZERO;

            /**
             * How far ahead partitions are made (at start and at every sweep); must exceed the longest
             * retention in use plus the sweeper's interval, or claims past it fail.
             */
            private Duration horizon = Duration.ofDays(8);

            public Duration getWidth() {
                return width;
            }

            public void setWidth(Duration width) {
                this.width = width;
            }

            public Duration getHorizon() {
                return horizon;
            }

            public void setHorizon(Duration horizon) {
                this.horizon = horizon;
            }
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

    /** Registration of the servlet filter (or the WebFlux filter). */
    public static class Filter {
        /**
         * Order of the filter among the servlet filters (a WebFlux application's WebFilters): early,
         * but after Spring Security's filter chain (-100) so the authenticated principal is known.
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
        notNull("idem.durability-check", durabilityCheck);
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
        notNull("idem.tombstones", tombstones);
        if (tombstones.isNegative()) {
            throw invalid("idem.tombstones", tombstones, "must not be negative (0 keeps no tombstones)");
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
        positive("idem.completer.delay", completer.delay);
        positive("idem.completer.poll-interval", completer.pollInterval);
        if (completer.delay.toMillis() < 1 || completer.pollInterval.toMillis() < 1) {
            throw invalid(completer.delay.toMillis() < 1 ? "idem.completer.delay" : "idem.completer.poll-interval",
                    completer.delay.toMillis() < 1 ? completer.delay : completer.pollInterval, "must be at least 1ms");
        }
        if (completer.maxAttempts < 2 || completer.maxAttempts > 1000) {
            throw invalid("idem.completer.max-attempts", completer.maxAttempts, "must be between 2 and 1000");
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

    public Duration getTombstones() {
        return tombstones;
    }

    public void setTombstones(Duration tombstones) {
        this.tombstones = tombstones;
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

    public DurabilityCheck getDurabilityCheck() {
        return durabilityCheck;
    }

    public void setDurabilityCheck(DurabilityCheck durabilityCheck) {
        this.durabilityCheck = durabilityCheck;
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

    /** {@code idem.migrations}. */
    public enum Migrations {
        /** idem's own migrator. */
        IDEM,
        /** Flyway, with idem's own history table. */
        FLYWAY,
        /** Liquibase, with idem's changelog for the dialect. */
        LIQUIBASE,
        /** Nothing: the application's migrations create the tables. */
        NONE
    }

    public Migrations getMigrations() {
        return migrations;
    }

    public void setMigrations(Migrations migrations) {
        notNull("idem.migrations", migrations);
        this.migrations = migrations;
    }

    public Redis getRedis() {
        return redis;
    }

    public NatsKv getNatsKv() {
        return natsKv;
    }

    public Schema getSchema() {
        return schema;
    }

    public Sweeper getSweeper() {
        return sweeper;
    }

    public Completer getCompleter() {
        return completer;
    }

    public Jdbc getJdbc() {
        return jdbc;
    }

    public Scope getScope() {
        return scope;
    }

    public Filter getFilter() {
        return filter;
    }
}
