package dev.idem.redis;

import static dev.idem.redis.internal.ScriptValues.ascii;
import static dev.idem.redis.internal.ScriptValues.integer;
import static dev.idem.redis.internal.ScriptValues.number;
import static dev.idem.redis.internal.ScriptValues.recoveryPoint;
import static dev.idem.redis.internal.ScriptValues.text;

import dev.idem.IdempotencyKey;
import dev.idem.Scope;
import dev.idem.redis.internal.KeyLayout;
import dev.idem.redis.internal.LuaScript;
import dev.idem.redis.internal.ScriptRunner;
import dev.idem.spi.Arguments;
import dev.idem.spi.RecordKey;
import dev.idem.spi.RecordState;
import dev.idem.spi.RecordSummary;
import dev.idem.spi.StoreAdministration;
import io.lettuce.core.ScriptOutputType;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;

/**
 * {@link StoreAdministration} of a {@link RedisIdempotencyStore}. A record is looked at and
 * released by one script on its slot; the lists read each shard's lease index (the records in
 * progress by lease end) with one script per shard and merge the answers, so they cost one round
 * trip per shard and a read of the records in progress, never of the completed ones. The lists
 * name records by their scope and key, which a record keeps only if the store was built with
 * {@link RedisIdempotencyStore.Builder#keepKeys}; without it they are refused. A record written
 * by a build without the lease index, or without {@code keepKeys}, is not listed.
 */
final class RedisStoreAdministration implements StoreAdministration {
    static final LuaScript INSPECT = LuaScript.load("admin_inspect");
    static final LuaScript IN_PROGRESS = LuaScript.load("admin_in_progress");
    static final LuaScript RELEASE = LuaScript.load("admin_release");
    /** Fields per record in the answer of {@code admin_in_progress}. */
    private static final int LISTED_FIELDS = 9;

    private final ScriptRunner scripts;
    private final KeyLayout keys;
    private final byte[] grace;
    private final boolean keysKept;

    RedisStoreAdministration(ScriptRunner scripts, KeyLayout keys, byte[] grace, boolean keysKept) {
        this.scripts = scripts;
        this.keys = keys;
        this.grace = grace;
        this.keysKept = keysKept;
    }

    @Override
    public Optional<RecordSummary> inspect(RecordKey id) {
        Objects.requireNonNull(id, "id is null");
        List<Object> f = scripts.<List<Object>>run(INSPECT, ScriptOutputType.MULTI, id.scope(), false, keys.of(id).recordOnly()).value();
        if (f.isEmpty()) {
            return Optional.empty();
        }
        Instant now = Instant.ofEpochMilli(Long.parseLong(text(f.get(0))));
        boolean completed = "1".equals(text(f.get(1)));
        return Optional.of(RecordSummary.of(id, completed ? RecordState.COMPLETED : RecordState.IN_PROGRESS, millis(f.get(2)),
                (int) millis(f.get(3)), instant(f.get(4)), f.get(6) == null ? null : instant(f.get(6)), instant(f.get(5)),
                recoveryPoint(f.get(7), f.get(8)),
                completed ? OptionalInt.of(Integer.parseInt(text(f.get(9)))) : OptionalInt.empty(),
                completed ? OptionalLong.of(integer(f.get(10))) : OptionalLong.empty(), now));
    }

    @Override
    public List<RecordSummary> expiredLeases(int limit) {
        Arguments.between("limit", limit, 1, MAX_LIST);
        List<RecordSummary> all = inProgress("expired", limit);
        all.sort(Comparator.comparing(RecordSummary::leaseUntil));
        return List.copyOf(all.subList(0, Math.min(limit, all.size())));
    }

    @Override
    public Optional<RecordSummary> oldestInProgress() {
        return inProgress("oldest", 1).stream().min(Comparator.comparing(s -> s.createdAt().orElse(Instant.MAX)));
    }

    @Override
    public ReleaseResult releaseStuck(RecordKey id, long token, boolean force) {
        Objects.requireNonNull(id, "id is null");
        // Not acknowledged by replicas, as the owner's own release: a failover that forgets it leaves
        // the record as the operator found it, and the release can be asked for again.
        long answer = scripts.<Long>run(RELEASE, ScriptOutputType.INTEGER, id.scope(), false, keys.of(id).withIndexes(),
                number(token), ascii(force ? "1" : "0"), grace).value();
        return switch ((int) answer) {
            case 0 -> ReleaseResult.RELEASED;
            case 1 -> ReleaseResult.LEASE_LIVE;
            case 2 -> ReleaseResult.TOKEN_CHANGED;
            default -> ReleaseResult.NOT_IN_PROGRESS;
        };
    }

    /** The answers of every shard's lease index in {@code mode}, each shard's up to {@code limit}. */
    private List<RecordSummary> inProgress(String mode, int limit) {
        if (!keysKept) {
            throw new UnsupportedOperationException("Redis store: the records keep no scope or key to list them by; build the store with"
                    + " keepKeys(true) (idem.redis.keep-keys=true) to list stuck records; a key you name can be looked at and released");
        }
        List<RecordSummary> out = new ArrayList<>();
        for (int shard = 0; shard < KeyLayout.SHARDS; shard++) {
            byte[][] index = {keys.leases(shard)};
            List<Object> f = scripts.<List<Object>>run(IN_PROGRESS, ScriptOutputType.MULTI, null, false, index, ascii(mode),
                    number(limit)).value();
            Instant now = Instant.ofEpochMilli(Long.parseLong(text(f.get(0))));
            for (int i = 1; i + LISTED_FIELDS <= f.size(); i += LISTED_FIELDS) {
                RecordKey id = new RecordKey(Scope.parse(text(f.get(i))), IdempotencyKey.of(text(f.get(i + 1))));
                out.add(RecordSummary.of(id, RecordState.IN_PROGRESS, millis(f.get(i + 2)), (int) millis(f.get(i + 3)),
                        instant(f.get(i + 4)), f.get(i + 6) == null ? null : instant(f.get(i + 6)), instant(f.get(i + 5)),
                        recoveryPoint(f.get(i + 7), f.get(i + 8)), OptionalInt.empty(), OptionalLong.empty(), now));
            }
        }
        return out;
    }

    private static long millis(Object field) {
        return Long.parseLong(text(field));
    }

    private static Instant instant(Object field) {
        return Instant.ofEpochMilli(millis(field));
    }
}
