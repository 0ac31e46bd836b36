package dev.idem.demo.proxy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.EOFException;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class HttpResponseFramerTest {
    private static HttpResponseFramer framer(String stream) {
        return new HttpResponseFramer(new ByteArrayInputStream(stream.getBytes(StandardCharsets.ISO_8859_1)));
    }

    private static String text(HttpResponseFramer.Frame frame) {
        return new String(frame.bytes(), StandardCharsets.ISO_8859_1);
    }

    @Test
    void cutsKeepAliveResponsesByContentLength() throws Exception {
        String one = "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello";
        String two = "HTTP/1.1 201 Created\r\ncontent-length: 2\r\n\r\nok";
        HttpResponseFramer framer = framer(one + two);

        HttpResponseFramer.Frame first = framer.next();
        HttpResponseFramer.Frame second = framer.next();

        assertThat(text(first)).isEqualTo(one);
        assertThat(first.status()).isEqualTo(200);
        assertThat(text(second)).isEqualTo(two);
        assertThat(second.status()).isEqualTo(201);
        assertThat(framer.next()).isNull();
    }

    @Test
    void followsChunksAndTrailers() throws Exception {
        String chunked = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5;ext=1\r\nhello\r\n3\r\nabc\r\n0\r\nTrailer: x\r\n\r\n";
        HttpResponseFramer framer = framer(chunked + "HTTP/1.1 204 No Content\r\n\r\n");

        assertThat(text(framer.next())).isEqualTo(chunked);
        HttpResponseFramer.Frame empty = framer.next();
        assertThat(empty.status()).isEqualTo(204);
        assertThat(empty.untilClose()).isFalse();
    }

    @Test
    void interimResponsesAreFramesOfTheirOwn() throws Exception {
        HttpResponseFramer framer = framer("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n");

        assertThat(framer.next().interim()).isTrue();
        HttpResponseFramer.Frame last = framer.next();
        assertThat(last.interim()).isFalse();
        assertThat(last.status()).isEqualTo(200);
    }

    @Test
    void aBodyWithoutLengthRunsToTheEndOfTheConnection() throws Exception {
        String response = "HTTP/1.1 200 OK\r\nConnection: close\r\n\r\nuntil the end";

        HttpResponseFramer.Frame frame = framer(response).next();

        assertThat(text(frame)).isEqualTo(response);
        assertThat(frame.untilClose()).isTrue();
    }

    @Test
    void aTruncatedResponseIsAnError() {
        assertThatThrownBy(() -> framer("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nshort").next()).isInstanceOf(EOFException.class);
        assertThatThrownBy(() -> framer("HTTP/1.1 200 OK\r\nContent-").next()).isInstanceOf(EOFException.class);
        assertThatThrownBy(() -> framer("SSH-2.0 hello\r\n\r\n").next()).hasMessageContaining("not an HTTP response");
    }
}
