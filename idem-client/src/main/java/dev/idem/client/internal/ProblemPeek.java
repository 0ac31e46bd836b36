package dev.idem.client.internal;

import java.io.ByteArrayOutputStream;
import java.net.http.HttpHeaders;
import java.net.http.HttpResponse.BodyHandler;
import java.net.http.HttpResponse.BodySubscriber;
import java.net.http.HttpResponse.ResponseInfo;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Flow;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads the RFC 9457 {@code type} of a 409 {@code application/problem+json} answer, which tells a key
 * in progress ({@code urn:idem:problem:key-in-use}: retry) from any other conflict (final), without
 * taking the body from the caller: such a body (small, by nature) is buffered in full, its type read,
 * then handed to the caller's own {@link BodySubscriber} as if it came from the wire. Every other
 * response goes to the caller's handler untouched. One instance per attempt.
 */
public final class ProblemPeek<T> implements BodyHandler<T> {
    private static final Pattern TYPE = Pattern.compile("\"type\"\\s*:\\s*\"((?:[^\"\\\\]|\\\\.)*)\"");

    private final BodyHandler<T> handler;
    private volatile String type;

    public ProblemPeek(BodyHandler<T> handler) {
        this.handler = handler;
    }

    /** The problem type of the response, once its body was read; null if it was not a 409 problem or had none. */
    public String type() {
        return type;
    }

    @Override
    public BodySubscriber<T> apply(ResponseInfo info) {
        BodySubscriber<T> downstream = handler.apply(info);
        if (info.statusCode() != 409 || !isProblemJson(info.headers())) {
            return downstream;
        }
        return new Buffering<>(downstream, this);
    }

    private static boolean isProblemJson(HttpHeaders headers) {
        return headers.firstValue("Content-Type")
                .map(value -> value.trim().toLowerCase(Locale.ROOT).startsWith("application/problem+json"))
                .orElse(false);
    }

    /** The {@code type} member of a problem body, or null. */
    public static String parseType(byte[] body) {
        Matcher matcher = TYPE.matcher(new String(body, StandardCharsets.UTF_8));
        return matcher.find() ? matcher.group(1).replace("\\/", "/") : null;
    }

    private static final class Buffering<T> implements BodySubscriber<T> {
        private final BodySubscriber<T> downstream;
        private final ProblemPeek<T> peek;
        private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        private final CompletableFuture<Void> buffered = new CompletableFuture<>();

        Buffering(BodySubscriber<T> downstream, ProblemPeek<T> peek) {
            this.downstream = downstream;
            this.peek = peek;
        }

        @Override
        public CompletionStage<T> getBody() {
            // The response is complete for the client only once the caller's subscriber has its body.
            return buffered.thenCompose(done -> downstream.getBody());
        }

        @Override
        public void onSubscribe(Flow.Subscription subscription) {
            subscription.request(Long.MAX_VALUE);
        }

        @Override
        public void onNext(List<ByteBuffer> items) {
            for (ByteBuffer item : items) {
                byte[] chunk = new byte[item.remaining()];
                item.get(chunk);
                bytes.write(chunk, 0, chunk.length);
            }
        }

        @Override
        public void onError(Throwable failure) {
            downstream.onSubscribe(new Replay(downstream, null));
            downstream.onError(failure);
            buffered.complete(null);
        }

        @Override
        public void onComplete() {
            byte[] body = bytes.toByteArray();
            peek.type = parseType(body);
            downstream.onSubscribe(new Replay(downstream, body));
            buffered.complete(null);
        }
    }

    /** Delivers the buffered body once, on the first request; nothing when {@code body} is null. */
    private static final class Replay implements Flow.Subscription {
        private final BodySubscriber<?> downstream;
        private final byte[] body;
        private boolean done;

        Replay(BodySubscriber<?> downstream, byte[] body) {
            this.downstream = downstream;
            this.body = body;
            this.done = body == null;
        }

        @Override
        public void request(long n) {
            synchronized (this) {
                if (done) {
                    return;
                }
                done = true;
            }
            if (n <= 0) {
                downstream.onError(new IllegalArgumentException("non-positive subscription request: " + n));
                return;
            }
            if (body.length > 0) {
                downstream.onNext(List.of(ByteBuffer.wrap(body)));
            }
            downstream.onComplete();
        }

        @Override
        public synchronized void cancel() {
            done = true;
        }
    }
}
