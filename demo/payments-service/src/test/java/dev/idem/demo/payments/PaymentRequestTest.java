package dev.idem.demo.payments;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import tools.jackson.databind.json.JsonMapper;

class PaymentRequestTest {
    private static final JsonMapper JSON = JsonMapper.builder().build();

    private static PaymentRequest parse(String body) {
        return PaymentRequest.parse(body.getBytes(StandardCharsets.UTF_8), JSON);
    }

    @Test
    void aValidPaymentIsParsedWhateverTheFieldOrder() {
        assertThat(parse("{\"card\":\"c-1\", \"currency\":\"RON\", \"amount\":1250}")).isEqualTo(new PaymentRequest(1250, "RON", "c-1"));
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(delimiter = '|', value = {
            "{\"currency\":\"EUR\",\"card\":\"c\"}|amount is required",
            "{\"amount\":null,\"currency\":\"EUR\",\"card\":\"c\"}|amount is required",
            "{\"amount\":100,\"card\":\"c\"}|currency is required",
            "{\"amount\":100,\"currency\":\"EUR\"}|card is required",
            "{\"amount\":-1,\"currency\":\"EUR\",\"card\":\"c\"}|between 1 and 100000000, was -1",
            "{\"amount\":0,\"currency\":\"EUR\",\"card\":\"c\"}|between 1 and 100000000, was 0",
            "{\"amount\":100000001,\"currency\":\"EUR\",\"card\":\"c\"}|between 1 and 100000000",
            "{\"amount\":1.5,\"currency\":\"EUR\",\"card\":\"c\"}|must be an integer",
            "{\"amount\":\"100\",\"currency\":\"EUR\",\"card\":\"c\"}|must be an integer",
            "{\"amount\":99999999999999999999,\"currency\":\"EUR\",\"card\":\"c\"}|must be an integer",
            "{\"amount\":100,\"currency\":\"eur\",\"card\":\"c\"}|currency must be one of CHF, EUR, GBP, JPY, RON, USD",
            "{\"amount\":100,\"currency\":\"XYZ\",\"card\":\"c\"}|currency must be one of",
            "{\"amount\":100,\"currency\":7,\"card\":\"c\"}|currency must be one of",
            "{\"amount\":100,\"currency\":\"EUR\",\"card\":\"\"}|card must have 1-64 characters, had 0",
            "{\"amount\":100,\"currency\":\"EUR\",\"card\":5}|card must be a string",
            "{\"amount\":100,\"currency\":\"EUR\",\"card\":\"c\",\"tip\":1}|unknown field 'tip'",
            "[]|must be a JSON object",
            "\"text\"|must be a JSON object",
            "{\"amount\":|not well-formed JSON",
            "{\"amount\":100 \"currency\":\"EUR\"}|not well-formed JSON",
    })
    void invalidBodiesAre400NamingTheProblem(String body, String detail) {
        assertThatThrownBy(() -> parse(body)).isInstanceOfSatisfying(PaymentProblem.class, p -> {
            assertThat(p.status()).isEqualTo(400);
            assertThat(p.getMessage()).contains(detail);
        });
    }

    @Test
    void anEmptyBodyIs400() {
        assertThatThrownBy(() -> parse("")).isInstanceOfSatisfying(PaymentProblem.class, p -> assertThat(p.status()).isEqualTo(400));
    }

    @Test
    void aCardWithAControlCharacterIsRefusedWithoutEchoingIt() {
        assertThatThrownBy(() -> parse("{\"amount\":1,\"currency\":\"EUR\",\"card\":\"zq\\u0007zq\"}"))
                .isInstanceOfSatisfying(PaymentProblem.class, p -> assertThat(p.getMessage()).contains("position 2").doesNotContain("zq"));
    }
}
