package dev.idem.redis.internal;

import dev.idem.spi.RecordKey;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;

/**
 * Where records live in Redis. A record's key is {@code <prefix>{<shard>}r:<digest>}: the digest is a
 * SHA-256 of the scope and the idempotency key (each length-prefixed), in base64url, so neither value
 * appears in key names, in {@code MONITOR}, in slow logs or in exceptions. Its first byte picks one
 * of {@value #SHARDS} shards; each shard has an expiry index {@code <prefix>{<shard>}expiry}, a
 * sorted set of its records by the time they stop being live, and a lease index {@code <prefix>{<shard>}leases},
 * a sorted set of its records in progress by the end of their lease (what an operator's list of
 * stuck records reads). The shard in braces is the hash tag, so a record and its indexes share a
 * hash slot and one script may touch them all on Redis Cluster.
 */
public final class KeyLayout {
    /** Enough to spread the slots over the nodes of any cluster; few enough that a purge visits them all quickly. */
    public static final int SHARDS = 256;

    private final String prefix;

    public KeyLayout(String prefix) {
        this.prefix = prefix;
    }

    /** The record's key and its shard's index key. */
    public Keys of(RecordKey id) {
        byte[] digest = digest(id);
        String shard = shardTag(digest[0] & 0xFF);
        String name = Base64.getUrlEncoder().withoutPadding().encodeToString(digest);
        return new Keys(ascii(prefix + shard + "r:" + name), ascii(prefix + shard + "expiry"), ascii(prefix + shard + "leases"));
    }

    /** The expiry index of shard {@code shard} (0 to {@value #SHARDS} - 1). */
    public byte[] index(int shard) {
        return ascii(prefix + shardTag(shard) + "expiry");
    }

    /** The lease index of shard {@code shard} (0 to {@value #SHARDS} - 1). */
    public byte[] leases(int shard) {
        return ascii(prefix + shardTag(shard) + "leases");
    }

    private static String shardTag(int shard) {
        return String.format("{%02x}", shard);
    }

    private static byte[] digest(RecordKey id) {
        try {
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            update(sha, id.scope().value());
            update(sha, id.key().value());
            return sha.digest();
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is required of every JDK", e);
        }
    }

    private static void update(MessageDigest sha, String part) {
        byte[] bytes = part.getBytes(StandardCharsets.UTF_8);
        sha.update(ByteBuffer.allocate(Integer.BYTES).putInt(bytes.length).array());
        sha.update(bytes);
    }

    private byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** A record's key and its shard's expiry and lease indexes, the keys of the scripts on one record. */
    public record Keys(byte[] record, byte[] index, byte[] leases) {
        /** The record and both of its shard's indexes, in that order: the keys of every script that writes a record. */
        public byte[][] withIndexes() {
            return new byte[][] {record, index, leases};
        }

        public byte[][] recordOnly() {
            return new byte[][] {record};
        }
    }
}
