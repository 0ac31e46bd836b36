package dev.idem.jakarta.rest.internal;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;

/**
 * The entity stream as the resource's writer sees it: up to the engine's cap (and one byte more, to
 * tell that it is over) held back, so the response can be stored before the client gets any of it;
 * an entity over the cap is stored without its body anyway, so from there it streams through and the
 * memory held stays bounded. Flushes and closes wait for {@link #release()}: they would commit the
 * response.
 */
final class CapturingStream extends OutputStream {
    private final OutputStream client;
    private final int limit;
    private final ByteArrayOutputStream held;
    private boolean passedThrough;
    private boolean clientFailed;

    CapturingStream(OutputStream client, int maxStoredBytes) {
        this.client = client;
        this.limit = maxStoredBytes == Integer.MAX_VALUE ? maxStoredBytes : maxStoredBytes + 1;
        this.held = new ByteArrayOutputStream(Math.min(limit, 8192));
    }

    @Override
    public void write(int b) throws IOException {
        write(new byte[] {(byte) b}, 0, 1);
    }

    @Override
    public void write(byte[] bytes, int offset, int length) throws IOException {
        if (passedThrough) {
            toClient(bytes, offset, length);
            return;
        }
        int room = limit - held.size();
        held.write(bytes, offset, Math.min(room, length));
        if (length > room) {
            passedThrough = true; // over the cap: stored without its body, so it need not wait
            toClient(held.toByteArray(), 0, held.size());
            toClient(bytes, offset + room, length - room);
        }
    }

    @Override
    public void flush() throws IOException {
        if (passedThrough) {
            try {
                client.flush();
            } catch (IOException e) {
                clientFailed = true;
                throw e;
            }
        }
    }

    private void toClient(byte[] bytes, int offset, int length) throws IOException {
        try {
            client.write(bytes, offset, length);
        } catch (IOException e) {
            clientFailed = true;
            throw e;
        }
    }

    @Override
    public void close() {
        // The runtime closes its own stream once the entity is written.
    }

    /** Whether the client got bytes already (the entity was over the cap). */
    boolean passedThrough() {
        return passedThrough;
    }

    /** Whether a write or flush to the client failed: the client is gone, the writer was not at fault. */
    boolean clientFailed() {
        return clientFailed;
    }

    /** What was held: the whole entity, or its first bytes beyond the cap. */
    byte[] captured() {
        return held.toByteArray();
    }

    /** Sends what was held back. */
    void release() throws IOException {
        if (!passedThrough) {
            held.writeTo(client);
        }
        client.flush();
    }
}
