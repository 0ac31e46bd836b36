package dev.idem.webflux.internal;

import dev.idem.StoragePolicy;
import dev.idem.StoredResponse;
import dev.idem.http.HttpAnswer;
import dev.idem.http.HttpAnswers;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.reactivestreams.Publisher;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.ResponseCookie;
import org.springframework.http.server.reactive.ServerHttpResponse;
import org.springframework.http.server.reactive.ServerHttpResponseDecorator;
import org.springframework.util.LinkedMultiValueMap;
import org.springframework.util.MultiValueMap;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The response as the handler sees it on a covered route. Nothing reaches the client while the
 * handler runs: status, headers, cookies and body are held here (the body in memory, in full, as
 * one array), the real response stays untouched, and the filter stores the result before it
 * {@link #sendToClient() sends} it (lock key → effect → store → send), or {@linkplain #discard()
 * drops} it for a failure answer.
 *
 * <p><b>Only the handler's headers are stored.</b> The capture starts with the headers already on
 * the response (set by filters in front of this one: CORS, request ids, …); those are not stored, as
 * those filters set their own again in front of a replay. A header whose values the handler replaced
 * is stored with its values; one it only added values to is stored with the added ones, named in
 * {@value HttpAnswers#APPENDED_HEADER}, so a replay appends them to the outer filters' fresh ones —
 * the Servlet filter's rule, so a replay reads the same on either stack.
 */
public final class CapturingResponse extends ServerHttpResponseDecorator {
    private final HttpHeaders atEntry;
    private final HttpHeaders headers;
    private final MultiValueMap<String, ResponseCookie> cookies = new LinkedMultiValueMap<>();
    private final List<Supplier<? extends Mono<Void>>> beforeCommit = new ArrayList<>();
    private HttpStatusCode status;
    private byte[] body = new byte[0];
    private boolean written;

    public CapturingResponse(ServerHttpResponse response) {
        super(response);
        this.atEntry = Headers.copy(response.getHeaders());
        this.headers = Headers.copy(response.getHeaders());
    }

    @Override
    public boolean setStatusCode(HttpStatusCode status) {
        this.status = status;
        return true;
    }

    @Override
    public boolean setRawStatusCode(Integer status) {
        this.status = status == null ? null : HttpStatusCode.valueOf(status);
        return true;
    }

    @Override
    public HttpStatusCode getStatusCode() {
        return status;
    }

    @Override
    public HttpHeaders getHeaders() {
        return headers;
    }

    @Override
    public MultiValueMap<String, ResponseCookie> getCookies() {
        return cookies;
    }

    @Override
    public void addCookie(ResponseCookie cookie) {
        cookies.add(cookie.getName(), cookie);
    }

    @Override
    public void beforeCommit(Supplier<? extends Mono<Void>> action) {
        beforeCommit.add(action);
    }

    @Override
    public boolean isCommitted() {
        return written;
    }

    @Override
    public Mono<Void> writeWith(Publisher<? extends DataBuffer> body) {
        return Bodies.bytes(DataBufferUtils.join(Flux.from(body)))
                .doOnNext(bytes -> {
                    this.body = bytes;
                    this.written = true;
                })
                .then();
    }

    @Override
    public Mono<Void> writeAndFlushWith(Publisher<? extends Publisher<? extends DataBuffer>> body) {
        return writeWith(Flux.from(body).concatMap(Flux::from));
    }

    @Override
    public Mono<Void> setComplete() {
        written = true;
        return Mono.empty();
    }

    /** Runs what the handler's stack registered to run before the response commits (they may still set headers). */
    public Mono<Void> beforeCommitted() {
        return Flux.fromIterable(beforeCommit).concatMap(Supplier::get).then();
    }

    /** What the handler answered, as the engine stores it: the handler's storable headers only. */
    public StoredResponse toStored() {
        int code = statusCode();
        Map<String, List<String>> stored = new LinkedHashMap<>();
        List<String> appended = new ArrayList<>();
        headers.forEach((name, values) -> storeHeader(name, values, stored, appended));
        if (!appended.isEmpty()) {
            stored.put(HttpAnswers.APPENDED_HEADER, List.of(String.join(", ", appended)));
        }
        StoredResponse response;
        try {
            response = StoredResponse.of(code, stored, body);
        } catch (IllegalArgumentException unstorableHeader) {
            // The effect happened: keep the outcome, not the headers.
            response = StoredResponse.of(code, Map.of(HttpAnswers.HEADERS_OMITTED_HEADER, List.of("true")), body);
        }
        return declined() ? StoragePolicy.declined(response) : response;
    }

    private void storeHeader(String name, List<String> values, Map<String, List<String>> stored, List<String> appended) {
        if (!HttpAnswers.storesHeader(name)) {
            return;
        }
        List<String> outer = Headers.values(atEntry, name);
        if (outer.isEmpty()) {
            stored.put(name, List.copyOf(values));
        } else if (values.size() > outer.size() && values.subList(0, outer.size()).equals(outer)) {
            stored.put(name, List.copyOf(values.subList(outer.size(), values.size())));
            appended.add(name);
        } else if (!values.equals(outer)) {
            stored.put(name, List.copyOf(values));
        }
    }

    private boolean declined() {
        String value = headers.getFirst(HttpAnswers.STORE_HEADER);
        return value != null && "no".equalsIgnoreCase(value.trim());
    }

    private int statusCode() {
        return status == null ? HttpStatus.OK.value() : status.value();
    }

    /** Sends what the handler answered, in full (stored or not), with its own status, headers and cookies. */
    public Mono<Void> sendToClient() {
        ServerHttpResponse response = getDelegate();
        List<HttpAnswer.Header> out = new ArrayList<>();
        headers.forEach((name, values) -> {
            // The store header is the handler's word to the filter; the length is the writer's.
            if (!name.equalsIgnoreCase(HttpAnswers.STORE_HEADER) && !name.equalsIgnoreCase(HttpHeaders.CONTENT_LENGTH)) {
                values.forEach(value -> out.add(HttpAnswer.Header.add(name, value)));
            }
        });
        response.getHeaders().clear(); // the capture began with the outer filters' headers: they are in out
        cookies.values().forEach(list -> list.forEach(response::addCookie));
        return WebFluxAnswers.write(new HttpAnswer(statusCode(), out, body), response);
    }

    /** Drops what the handler answered, for an answer of the filter's own (a store failure). */
    public void discard() {
        body = new byte[0];
        cookies.clear();
    }
}
