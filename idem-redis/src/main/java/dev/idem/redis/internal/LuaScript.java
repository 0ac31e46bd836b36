package dev.idem.redis.internal;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * One of the store's scripts: {@code common.lua} followed by the operation's own file, both
 * resources next to this package's parent. Read once; the SHA-1 that {@code EVALSHA} names it by is
 * computed here, so no round trip is needed to learn it.
 */
public final class LuaScript {
    private static final String FOLDER = "/dev/idem/redis/";
    private static final String COMMON = read("common");

    private final String name;
    private final byte[] text;
    private final String sha1;

    private LuaScript(String name, byte[] text) {
        this.name = name;
        this.text = text;
        this.sha1 = sha1(text);
    }

    /** The script of an operation, e.g. {@code claim}. */
    public static LuaScript load(String name) {
        return new LuaScript(name, (COMMON + "\n" + read(name)).getBytes(StandardCharsets.UTF_8));
    }

    public String name() {
        return name;
    }

    /** The full text, for {@code EVAL} and {@code SCRIPT LOAD}. */
    public byte[] text() {
        return text.clone();
    }

    /** Lower-case hex, as {@code EVALSHA} and {@code SCRIPT LOAD} name it. */
    public String sha1() {
        return sha1;
    }

    private static String read(String name) {
        String resource = FOLDER + name + ".lua";
        try (InputStream in = LuaScript.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("script " + resource + " is missing from idem-redis' jar");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read script " + resource, e);
        }
    }

    private static String sha1(byte[] text) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-1").digest(text));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-1 is required of every JDK", e);
        }
    }

    @Override
    public String toString() {
        return name + ".lua (" + sha1 + ")";
    }
}
