package dev.idem.http;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;

/** How a keyed request's body is read before anything runs: in full, up to a cap, for any web stack. */
public final class RequestBodies {
    private static final int READ_CHUNK = 8192;
    /** The largest limit a filter accepts: arrays in the JVM stop a little short of {@code Integer.MAX_VALUE}. */
    public static final int MAX_LIMIT = Integer.MAX_VALUE - 8;

    private RequestBodies() {
    }

    /**
     * Checks a filter's byte limit (a request body's, a stored response's) and returns it.
     *
     * @throws IllegalArgumentException naming {@code name} if it is negative or over {@link #MAX_LIMIT}
     */
    public static int checkLimit(String name, int value) {
        if (value < 0 || value > MAX_LIMIT) {
            throw new IllegalArgumentException(name + " must be between 0 and " + MAX_LIMIT + ", was " + value);
        }
        return value;
    }

    /**
     * Reads {@code in} to its end, or returns null as soon as more than {@code max} bytes arrived
     * (the rest is left unread: the caller answers {@link HttpAnswers#requestTooLarge 413} without
     * buffering an unbounded body). A {@code declaredLength} over {@code max} is refused before a byte
     * is read.
     *
     * @param declaredLength the request's Content-Length, or -1 when it has none
     */
    public static byte[] readBounded(InputStream in, int max, long declaredLength) throws IOException {
        if (declaredLength > max) {
            return null;
        }
        int initial = (int) Math.max(0, Math.min(declaredLength < 0 ? READ_CHUNK : declaredLength, Math.min(max, 1 << 20)));
        ByteArrayOutputStream out = new ByteArrayOutputStream(initial);
        byte[] chunk = new byte[READ_CHUNK];
        long total = 0;
        int n;
        while ((n = in.read(chunk)) != -1) {
            total += n;
            if (total > max) {
                return null;
            }
            out.write(chunk, 0, n);
        }
        return out.toByteArray();
    }
}
