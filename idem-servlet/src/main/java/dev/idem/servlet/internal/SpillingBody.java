package dev.idem.servlet.internal;

import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * A handler's response body while it is captured: the first {@code inMemoryLimit} bytes in memory,
 * the rest in a temporary file, so a response far over the stored cap costs at most that limit of
 * heap. The file is deleted by {@link #discard()} (after the body was sent, or when it is dropped).
 */
final class SpillingBody {
    private static final int INITIAL_CAPACITY = 256;
    private static final int COPY_CHUNK = 64 * 1024;

    private final int inMemoryLimit;
    private byte[] head = new byte[0];
    private int headLength;
    private Path overflowFile;
    private OutputStream overflow;
    private long overflowLength;

    /** @param inMemoryLimit the most bytes held in memory; what comes after goes to a temporary file */
    SpillingBody(int inMemoryLimit) {
        this.inMemoryLimit = inMemoryLimit;
    }

    void write(int b) throws IOException {
        if (headLength < inMemoryLimit) {
            ensureCapacity(headLength + 1);
            head[headLength++] = (byte) b;
        } else {
            overflowStream().write(b);
            overflowLength++;
        }
    }

    void write(byte[] bytes, int offset, int length) throws IOException {
        int toHead = (int) Math.min(length, (long) inMemoryLimit - headLength);
        if (toHead > 0) {
            ensureCapacity(headLength + toHead);
            System.arraycopy(bytes, offset, head, headLength, toHead);
            headLength += toHead;
        }
        int rest = length - toHead;
        if (rest > 0) {
            overflowStream().write(bytes, offset + toHead, rest);
            overflowLength += rest;
        }
    }

    private void ensureCapacity(int needed) {
        if (needed > head.length) {
            // Doubling, but never past the limit: the heap held stays within it.
            long doubled = Math.max(INITIAL_CAPACITY, 2L * head.length);
            head = Arrays.copyOf(head, (int) Math.min(inMemoryLimit, Math.max(needed, doubled)));
        }
    }

    private OutputStream overflowStream() throws IOException {
        if (overflow == null) {
            overflowFile = Files.createTempFile("idem-response-", ".part");
            overflow = new BufferedOutputStream(Files.newOutputStream(overflowFile), COPY_CHUNK);
        }
        return overflow;
    }

    /** All bytes written so far. */
    long length() {
        return headLength + overflowLength;
    }

    /** The bytes held in memory: the whole body when it fits the limit, else its first {@code inMemoryLimit} bytes. */
    byte[] head() {
        return Arrays.copyOf(head, headLength);
    }

    /** Heap held for the body, for tests of the bound. */
    int heapBytes() {
        return head.length;
    }

    /** Writes the whole body, memory then file, to {@code out}. */
    void writeTo(OutputStream out) throws IOException {
        out.write(head, 0, headLength);
        if (overflow != null) {
            overflow.flush();
            try (InputStream in = Files.newInputStream(overflowFile)) {
                in.transferTo(out);
            }
        }
    }

    /** Empties the body and deletes its file; safe to call more than once. */
    void discard() throws IOException {
        head = new byte[0];
        headLength = 0;
        overflowLength = 0;
        if (overflow != null) {
            try {
                overflow.close();
            } finally {
                overflow = null;
                Files.deleteIfExists(overflowFile);
                overflowFile = null;
            }
        }
    }
}
