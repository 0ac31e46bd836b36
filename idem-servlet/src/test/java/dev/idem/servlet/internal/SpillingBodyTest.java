package dev.idem.servlet.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.security.MessageDigest;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class SpillingBodyTest {
    private static final int LIMIT = 1024 * 1024 + 1;

    @Test
    @DisplayName("20 MiB written: the heap held stays at the limit, the head is the first bytes, the whole body comes back in order")
    void overflowGoesToAFile() throws Exception {
        SpillingBody body = new SpillingBody(LIMIT);
        MessageDigest written = MessageDigest.getInstance("SHA-256");
        byte[] chunk = new byte[8191]; // not a divisor of the limit: writes straddle it
        long total = 20L * 1024 * 1024;
        for (long position = 0; position < total; position += chunk.length) {
            int length = (int) Math.min(chunk.length, total - position);
            for (int i = 0; i < length; i++) {
                chunk[i] = (byte) ((position + i) % 251);
            }
            body.write(chunk, 0, length);
            written.update(chunk, 0, length);
            assertThat(body.heapBytes()).isLessThanOrEqualTo(LIMIT);
        }
        body.write(7);
        written.update((byte) 7);

        assertThat(body.length()).isEqualTo(total + 1);
        byte[] head = body.head();
        assertThat(head).hasSize(LIMIT);
        assertThat(head[LIMIT - 1]).isEqualTo((byte) ((LIMIT - 1) % 251));
        DigestingStream sent = new DigestingStream();
        body.writeTo(sent);
        assertThat(sent.count).isEqualTo(total + 1);
        assertThat(sent.digest.digest()).isEqualTo(written.digest());

        body.discard();
        assertThat(body.length()).isZero();
        assertThat(body.heapBytes()).isZero();
        body.discard(); // twice is harmless
    }

    @Test
    @DisplayName("a body within the limit stays in memory only")
    void smallBodyStaysInMemory() throws IOException {
        SpillingBody body = new SpillingBody(LIMIT);
        body.write("hello".getBytes(), 0, 5);

        ByteArrayOutputStream out = new ByteArrayOutputStream();
        body.writeTo(out);
        assertThat(out.toString()).isEqualTo("hello");
        assertThat(body.head()).isEqualTo("hello".getBytes());
        assertThat(body.heapBytes()).isLessThan(1024);
    }

    private static final class DigestingStream extends OutputStream {
        final MessageDigest digest;
        long count;

        DigestingStream() throws Exception {
            digest = MessageDigest.getInstance("SHA-256");
        }

        @Override
        public void write(int b) {
            digest.update((byte) b);
            count++;
        }

        @Override
        public void write(byte[] bytes, int offset, int length) {
            digest.update(bytes, offset, length);
            count += length;
        }
    }
}
