package dev.idem.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import org.junit.jupiter.api.Test;

/** The bounded read every filter buffers a keyed request's body with, and the stored-header rule. */
class RequestBodiesTest {
    @Test
    void readsUpToTheCapAndRefusesBeyondIt() throws IOException {
        byte[] body = new byte[100];

        assertThat(RequestBodies.readBounded(new ByteArrayInputStream(body), 100, -1)).hasSize(100);
        assertThat(RequestBodies.readBounded(new ByteArrayInputStream(body), 99, -1)).as("over the cap while reading").isNull();
        assertThat(RequestBodies.readBounded(new ByteArrayInputStream(new byte[0]), 99, 100)).as("declared over the cap").isNull();
        assertThat(RequestBodies.readBounded(new ByteArrayInputStream(new byte[0]), 0, 0)).isEmpty();
    }

    @Test
    void cookiesHopByHopAndIdemHeadersAreNotStored() {
        assertThat(HttpAnswers.storesHeader("Location")).isTrue();
        assertThat(HttpAnswers.storesHeader("content-type")).isTrue();
        assertThat(HttpAnswers.storesHeader("set-cookie")).isFalse();
        assertThat(HttpAnswers.storesHeader("Transfer-Encoding")).isFalse();
        assertThat(HttpAnswers.storesHeader("Content-Length")).isFalse();
        assertThat(HttpAnswers.storesHeader(HttpAnswers.REPLAYED_HEADER)).isFalse();
        assertThat(HttpAnswers.storesHeader(HttpAnswers.STORE_HEADER)).isFalse();
    }
}
