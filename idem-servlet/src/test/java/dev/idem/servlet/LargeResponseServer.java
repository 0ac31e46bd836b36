package dev.idem.servlet;

import dev.idem.Idem;
import dev.idem.jdbc.JdbcIdempotencyStore;
import dev.idem.testing.TestDatabase;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The server of {@link LargeResponseHttpTest}, run in a child JVM with a small heap: the filter with
 * a 1 MiB engine cap on a real store, a handler on {@code /payments} that writes {@code bodyBytes}
 * bytes of {@link #byteAt a known pattern}, and {@code GET /runs}, which the filter passes through,
 * telling how often that handler ran.
 *
 * <p>Arguments: the {@link Backend}, the body size in bytes, and a file to write the port to once listening.
 */
public final class LargeResponseServer {
    static final int CAP = 1024 * 1024;
    private static final int CHUNK = 64 * 1024;

    private LargeResponseServer() {
    }

    /** The body's byte at {@code position}: a pattern whose period (251) is prime to every chunk size. */
    static byte byteAt(long position) {
        return (byte) (position % 251);
    }

    public static void main(String[] args) throws Exception {
        Backend backend = Backend.valueOf(args[0]);
        long bodyBytes = Long.parseLong(args[1]);
        Path portFile = Path.of(args[2]);
        TestDatabase db = backend.open();
        JdbcIdempotencyStore store = JdbcIdempotencyStore.builder(db.dataSource()).build();
        store.migrate();
        Idem idem = Idem.builder().store(store).maxResponseBytes(CAP).build();
        AtomicInteger runs = new AtomicInteger();
        TestServer server = TestServer.start(IdempotencyFilter.builder(idem).build(), Map.of(
                FilterTestSupport.PAYMENTS, (request, response) -> {
                    runs.incrementAndGet();
                    response.setStatus(201);
                    response.setContentType("application/octet-stream");
                    OutputStream out = response.getOutputStream();
                    byte[] chunk = new byte[CHUNK];
                    for (long written = 0; written < bodyBytes; written += CHUNK) {
                        int length = (int) Math.min(CHUNK, bodyBytes - written);
                        for (int i = 0; i < length; i++) {
                            chunk[i] = byteAt(written + i);
                        }
                        out.write(chunk, 0, length);
                    }
                },
                "/runs", (request, response) -> response.getOutputStream().write(Integer.toString(runs.get()).getBytes(StandardCharsets.US_ASCII))));
        Path partial = Files.writeString(portFile.resolveSibling(portFile.getFileName() + ".tmp"), Integer.toString(server.base().getPort()));
        Files.move(partial, portFile);
        Thread.currentThread().join(); // until the test ends this process
    }
}
