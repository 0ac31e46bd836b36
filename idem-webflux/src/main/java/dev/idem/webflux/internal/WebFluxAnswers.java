package dev.idem.webflux.internal;

import dev.idem.http.HttpAnswer;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.server.reactive.ServerHttpResponse;
import reactor.core.publisher.Mono;

/** Writes the stack-neutral {@link HttpAnswer}s of {@code dev.idem.http} to a WebFlux response. */
public final class WebFluxAnswers {
    private WebFluxAnswers() {
    }

    /** Status, header writes in order, then the body as one {@link DataBuffer} (with its length, where the status has content). */
    public static Mono<Void> write(HttpAnswer answer, ServerHttpResponse response) {
        response.setStatusCode(HttpStatusCode.valueOf(answer.status()));
        HttpHeaders headers = response.getHeaders();
        for (HttpAnswer.Header header : answer.headers()) {
            if (header.append()) {
                headers.add(header.name(), header.value());
            } else {
                headers.set(header.name(), header.value());
            }
        }
        if (!answer.hasContent()) {
            Headers.remove(headers, HttpHeaders.CONTENT_LENGTH);
            return response.setComplete();
        }
        byte[] body = answer.body();
        headers.setContentLength(body.length);
        return body.length == 0 ? response.setComplete() : response.writeWith(Mono.fromSupplier(() -> response.bufferFactory().wrap(body)));
    }
}
