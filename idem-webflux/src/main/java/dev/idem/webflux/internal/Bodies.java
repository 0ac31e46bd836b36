package dev.idem.webflux.internal;

import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferUtils;
import reactor.core.publisher.Mono;

/** A joined body as bytes, the buffer released: how the filter reads requests and captures responses. */
public final class Bodies {
    private Bodies() {
    }

    /** The bytes of {@code joined} (a {@link DataBufferUtils#join} result), released after; empty bytes for no body. */
    public static Mono<byte[]> bytes(Mono<DataBuffer> joined) {
        return joined.map(buffer -> {
            try {
                byte[] bytes = new byte[buffer.readableByteCount()];
                buffer.read(bytes);
                return bytes;
            } finally {
                DataBufferUtils.release(buffer);
            }
        }).defaultIfEmpty(new byte[0]);
    }
}
