package dev.idem.http;

import dev.idem.InputCodec;
import dev.idem.OperationRegistry;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * What an HTTP route opted in to completion stores with its claim, so that a
 * {@link dev.idem.Completer} can run its handler again inside the application after its client went
 * away: the method, the target (the path within the application as it came, percent-encoded, with
 * its query), the headers the handler needs (by default {@code Content-Type} and {@code Accept}, see
 * {@link #KEPT_HEADERS}) and the body. It may hold personal data: it is kept in the record while
 * the record lives (see the project's {@code docs/completer.md}).
 *
 * <p>Immutable; the body is copied in and out. {@link #CODEC} is its versioned binary format.
 */
public final class StoredRequest {
    /** The headers a route keeps unless it names its own: what decides how a handler reads the body and writes its answer. */
    public static final List<String> KEPT_HEADERS = List.of("Content-Type", "Accept");
    /** The largest body stored: the stored input's cap less room for the method, target and headers. */
    public static final int MAX_BODY_BYTES = OperationRegistry.MAX_INPUT_BYTES - 64 * 1024;
    /** The largest target, and the largest sum of header names and values, in UTF-8 bytes. */
    public static final int MAX_TARGET_BYTES = 16 * 1024;
    public static final int MAX_HEADER_BYTES = 32 * 1024;
    /** The most headers stored. */
    public static final int MAX_HEADERS = 64;

    /** The format: {@code version:byte=1, method, target, count:int, (name, value)*, body}, each a length:int and UTF-8 (the body: bytes). */
    public static final InputCodec<StoredRequest> CODEC = new Codec();
    private static final byte VERSION = 1;

    private final String method;
    private final String target;
    private final List<Header> headers;
    private final byte[] body;

    private StoredRequest(String method, String target, List<Header> headers, byte[] body) {
        this.method = method;
        this.target = target;
        this.headers = headers;
        this.body = body;
    }

    /**
     * A request to store.
     *
     * @param target the path within the application, as sent (percent-encoded), and {@code ?query} if it had one
     * @throws IllegalArgumentException naming the part that breaks a rule (never its value): a method that
     *                                  is not an HTTP token, a target that does not start with {@code /} or is over
     *                                  {@link #MAX_TARGET_BYTES}, a header name that is not a token, a value with a
     *                                  control character, more than {@link #MAX_HEADERS} headers or {@link #MAX_HEADER_BYTES},
     *                                  a body over {@link #MAX_BODY_BYTES}
     */
    public static StoredRequest of(String method, String target, List<Header> headers, byte[] body) {
        Objects.requireNonNull(method, "method is null");
        Objects.requireNonNull(target, "target is null");
        Objects.requireNonNull(headers, "headers is null");
        Objects.requireNonNull(body, "body is null");
        return validated(method, target, List.copyOf(headers), body.clone());
    }

    private static StoredRequest validated(String method, String target, List<Header> headers, byte[] body) {
        HttpAnswers.requireToken("stored request method", method);
        if (!target.startsWith("/")) {
            throw new IllegalArgumentException("stored request target must start with '/'");
        }
        if (utf8Length(target) > MAX_TARGET_BYTES) {
            throw new IllegalArgumentException("stored request target is over " + MAX_TARGET_BYTES + " bytes");
        }
        for (int i = 0; i < target.length(); i++) {
            char c = target.charAt(i);
            if (c <= ' ' || c == 0x7F) {
                throw new IllegalArgumentException("stored request target has a space or control character at position " + i);
            }
        }
        if (headers.size() > MAX_HEADERS) {
            throw new IllegalArgumentException("stored request has " + headers.size() + " headers, more than " + MAX_HEADERS);
        }
        long headerBytes = 0;
        for (Header header : headers) {
            headerBytes += utf8Length(header.name()) + utf8Length(header.value());
        }
        if (headerBytes > MAX_HEADER_BYTES) {
            throw new IllegalArgumentException("stored request headers are over " + MAX_HEADER_BYTES + " bytes");
        }
        if (body.length > MAX_BODY_BYTES) {
            throw new IllegalArgumentException("stored request body is " + body.length + " bytes, more than " + MAX_BODY_BYTES);
        }
        return new StoredRequest(method, target, headers, body);
    }

    public String method() {
        return method;
    }

    /** The path within the application as sent (percent-encoded), with {@code ?query} if the request had one. */
    public String target() {
        return target;
    }

    /** {@link #target()} without its query. */
    public String path() {
        int q = target.indexOf('?');
        return q < 0 ? target : target.substring(0, q);
    }

    /** The query as sent, without {@code ?}; empty when there was none. */
    public Optional<String> query() {
        int q = target.indexOf('?');
        return q < 0 ? Optional.empty() : Optional.of(target.substring(q + 1));
    }

    /** The kept headers, in the order and with the repeats they came with. */
    public List<Header> headers() {
        return headers;
    }

    /** The values of the header {@code name} (case-insensitive), in order. */
    public List<String> headers(String name) {
        List<String> values = new ArrayList<>();
        for (Header header : headers) {
            if (header.name().equalsIgnoreCase(name)) {
                values.add(header.value());
            }
        }
        return values;
    }

    /** The first value of the header {@code name} (case-insensitive). */
    public Optional<String> header(String name) {
        List<String> values = headers(name);
        return values.isEmpty() ? Optional.empty() : Optional.of(values.get(0));
    }

    public byte[] body() {
        return body.clone();
    }

    /** The body's length, without copying it. */
    public int bodyLength() {
        return body.length;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof StoredRequest other && method.equals(other.method) && target.equals(other.target)
                && headers.equals(other.headers) && Arrays.equals(body, other.body);
    }

    @Override
    public int hashCode() {
        return Objects.hash(method, target, headers, Arrays.hashCode(body));
    }

    /** Names the method and the sizes only: the target, headers and body may hold personal data. */
    @Override
    public String toString() {
        return "StoredRequest[" + method + ", " + headers.size() + " headers, " + body.length + " body bytes]";
    }

    /** One kept header. */
    public record Header(String name, String value) {
        /** @throws IllegalArgumentException if the name is not an HTTP token or the value has a control character other than tab */
        public Header {
            HttpAnswers.requireToken("stored request header name", name);
            Objects.requireNonNull(value, () -> "value of stored request header '" + name + "' is null");
            for (int i = 0; i < value.length(); i++) {
                char c = value.charAt(i);
                if ((c < ' ' && c != '\t') || c == 0x7F) {
                    throw new IllegalArgumentException("value of stored request header '" + name + "' has a control character at position " + i);
                }
            }
        }

        /** Names the header only. */
        @Override
        public String toString() {
            return "Header[" + name + "]";
        }
    }

    private static int utf8Length(String text) {
        return text.getBytes(StandardCharsets.UTF_8).length;
    }

    private static final class Codec implements InputCodec<StoredRequest> {
        @Override
        public byte[] encode(StoredRequest request) {
            try {
                ByteArrayOutputStream bytes = new ByteArrayOutputStream(request.body.length + 256);
                DataOutputStream out = new DataOutputStream(bytes);
                out.writeByte(VERSION);
                text(out, request.method);
                text(out, request.target);
                out.writeInt(request.headers.size());
                for (Header header : request.headers) {
                    text(out, header.name());
                    text(out, header.value());
                }
                out.writeInt(request.body.length);
                out.write(request.body);
                out.flush();
                return bytes.toByteArray();
            } catch (IOException e) {
                throw new UncheckedIOException("cannot happen: writing to memory", e);
            }
        }

        private static void text(DataOutputStream out, String text) throws IOException {
            byte[] utf8 = text.getBytes(StandardCharsets.UTF_8);
            out.writeInt(utf8.length);
            out.write(utf8);
        }

        /** @throws IllegalArgumentException naming what is wrong (never a value): version, truncation, a length, a rule of {@link #of} */
        @Override
        public StoredRequest decode(byte[] encoded) {
            Objects.requireNonNull(encoded, "stored request is null");
            ByteBuffer in = ByteBuffer.wrap(encoded);
            if (!in.hasRemaining()) {
                throw new IllegalArgumentException("stored request is empty");
            }
            byte version = in.get();
            if (version != VERSION) {
                throw new IllegalArgumentException("stored request has unknown format version " + version + "; this release reads " + VERSION);
            }
            String method = text(in, "method", 64);
            String target = text(in, "target", MAX_TARGET_BYTES);
            int count = length(in, "header count", MAX_HEADERS);
            List<Header> headers = new ArrayList<>(count);
            for (int i = 0; i < count; i++) {
                String name = text(in, "header " + i + " name", MAX_HEADER_BYTES);
                String value = text(in, "header " + i + " value", MAX_HEADER_BYTES);
                headers.add(new Header(name, value));
            }
            int bodyLength = length(in, "body length", MAX_BODY_BYTES);
            byte[] body = new byte[bodyLength];
            in.get(body);
            if (in.hasRemaining()) {
                throw new IllegalArgumentException("stored request has " + in.remaining() + " bytes after its body");
            }
            return validated(method, target, List.copyOf(headers), body);
        }

        private static int length(ByteBuffer in, String what, int max) {
            if (in.remaining() < Integer.BYTES) {
                throw new IllegalArgumentException("stored request is truncated before its " + what);
            }
            int length = in.getInt();
            if (length < 0 || length > max) {
                throw new IllegalArgumentException("stored request " + what + " is " + length + ", outside 0.." + max);
            }
            if (!what.equals("header count") && length > in.remaining()) {
                throw new IllegalArgumentException("stored request is truncated in its " + what.replace(" length", ""));
            }
            return length;
        }

        private static String text(ByteBuffer in, String what, int max) {
            int length = length(in, what + " length", max);
            ByteBuffer slice = in.slice(in.position(), length);
            in.position(in.position() + length);
            try {
                return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                        .onUnmappableCharacter(CodingErrorAction.REPORT).decode(slice).toString();
            } catch (CharacterCodingException e) {
                throw new IllegalArgumentException("stored request " + what + " is not UTF-8");
            }
        }

        @Override
        public String toString() {
            return "StoredRequest.CODEC";
        }
    }
}
