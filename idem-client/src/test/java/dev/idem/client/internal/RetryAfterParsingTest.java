package dev.idem.client.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class RetryAfterParsingTest {
    private static final Instant NOW = Instant.parse("2030-01-01T00:00:00Z");

    @ParameterizedTest(name = "\"{0}\" -> {1} s")
    @CsvSource(delimiter = '|', value = {
            "0|0",
            "120|120",
            "' 7 '|7",
            "Tue, 01 Jan 2030 00:00:07 GMT|7",
            "Tue, 1 Jan 2030 00:01:00 GMT|60",
            "Mon, 31 Dec 2029 23:00:00 GMT|0",
            "9999999999999999999999|999999999999",
    })
    void reads_delta_seconds_and_http_dates(String header, long seconds) {
        assertThat(RetryAfter.parse(header, NOW)).contains(Duration.ofSeconds(seconds));
    }

    @ParameterizedTest(name = "\"{0}\" is ignored")
    @ValueSource(strings = {"", "soon", "-5", "1.5", "2030-01-01T00:00:07Z", "Tuesday, 01-Jan-30 00:00:07 GMT"})
    void ignores_what_it_cannot_read(String header) {
        assertThat(RetryAfter.parse(header, NOW)).isEmpty();
    }
}
