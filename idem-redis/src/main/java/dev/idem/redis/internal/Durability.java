package dev.idem.redis.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** Judges a Redis server's persistence settings, as {@code CONFIG GET} reports them. */
public final class Durability {
    /** The settings {@link #problems} reads. */
    public static final String[] SETTINGS = {"appendonly", "appendfsync", "maxmemory", "maxmemory-policy"};

    private Durability() {
    }

    /** What keeps the server from holding records durably; empty if nothing does. */
    public static List<String> problems(Map<String, String> config) {
        List<String> problems = new ArrayList<>();
        String appendonly = setting(config, "appendonly");
        if (!"yes".equals(appendonly)) {
            problems.add("appendonly is '" + appendonly + "': without the append-only file Redis keeps records in memory"
                    + " (at best in a periodic snapshot), so a restart forgets keys and their retries run again");
        } else {
            String fsync = setting(config, "appendfsync");
            if (!"always".equals(fsync) && !"everysec".equals(fsync)) {
                problems.add("appendfsync is '" + fsync + "': the operating system decides when the append-only file"
                        + " reaches the disk, so a power failure can lose far more than a second of records");
            }
        }
        String maxmemory = setting(config, "maxmemory");
        String policy = setting(config, "maxmemory-policy");
        if (!"0".equals(maxmemory) && !"noeviction".equals(policy)) {
            problems.add("maxmemory-policy is '" + policy + "' with maxmemory " + maxmemory
                    + ": Redis may evict records when memory runs short");
        }
        return problems;
    }

    /** The message a refused build throws. */
    public static String refusal(List<String> problems) {
        return "Redis store: the server does not keep idempotency records durably: " + String.join("; ", problems)
                + ". Set 'appendonly yes' and 'appendfsync everysec' (up to about 1 s of acknowledged records lost on"
                + " a power failure) or 'appendfsync always' (none lost, slower writes), and 'maxmemory-policy noeviction'"
                + " if maxmemory is set, in redis.conf or with CONFIG SET. For a server known to persist whose CONFIG"
                + " command is disabled, or a throwaway test server, build with persistenceCheck(PersistenceCheck.SKIP).";
    }

    /** The message when the server does not answer {@code CONFIG GET}. */
    public static String unverifiable(String reason) {
        return "Redis store: cannot check that the server persists records, it refused CONFIG GET (" + reason + ")."
                + " If the server is known to persist (a managed Redis with the append-only file on),"
                + " build with persistenceCheck(PersistenceCheck.SKIP).";
    }

    private static String setting(Map<String, String> config, String name) {
        String value = config.get(name);
        return value == null ? "(not reported)" : value.trim().toLowerCase(Locale.ROOT);
    }
}
