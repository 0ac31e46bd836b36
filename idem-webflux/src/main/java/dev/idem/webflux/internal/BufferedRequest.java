package dev.idem.webflux.internal;

import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DefaultDataBufferFactory;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.http.server.reactive.ServerHttpRequestDecorator;
import reactor.core.publisher.Flux;

/**
 * The request as the handler sees it on a covered route: its body was read (to fingerprint it), so
 * it is supplied again from the buffered bytes, as a fresh {@link DataBuffer} on each subscription.
 */
public final class BufferedRequest extends ServerHttpRequestDecorator {
    private final byte[] body;

    public BufferedRequest(ServerHttpRequest request, byte[] body) {
        super(request);
        this.body = body;
    }

    @Override
    public Flux<DataBuffer> getBody() {
        return body.length == 0 ? Flux.empty() : Flux.defer(() -> Flux.just(DefaultDataBufferFactory.sharedInstance.wrap(body)));
    }
}
