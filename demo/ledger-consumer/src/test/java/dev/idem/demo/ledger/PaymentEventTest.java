package dev.idem.demo.ledger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

class PaymentEventTest {
    private static final JsonMapper JSON = PaymentEvent.jsonMapper();

    @Test
    void readsTheOutboxEventAndIgnoresFieldsItDoesNotKeep() {
        PaymentEvent event = parse("{\"paymentId\":\"pay_1\",\"card\":\"4242\",\"amount\":1250,\"currency\":\"EUR\",\"chargeId\":\"ch_1\",\"extra\":true}");
        assertThat(event).isEqualTo(new PaymentEvent("pay_1", "4242", 1250, "EUR"));
        assertThat(parse("{\"paymentId\":\"pay_2\",\"card\":\"c\",\"amount\":1,\"currency\":\"USD\"}").paymentId()).isEqualTo("pay_2");
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
            "not json SECRET                                                          | not well-formed JSON (line 1, column",
            "{\"paymentId\":\"SECRET\"                                                | not well-formed JSON",
            "[1,2]                                                                    | must be a JSON object",
            "{\"card\":\"SECRET\",\"amount\":1,\"currency\":\"EUR\"}                  | paymentId is missing",
            "{\"paymentId\":1,\"card\":\"SECRET\",\"amount\":1,\"currency\":\"EUR\"}  | paymentId must be a string",
            "{\"paymentId\":\"\",\"card\":\"SECRET\",\"amount\":1,\"currency\":\"EUR\"} | paymentId must have 1-255 characters, had 0",
            "{\"paymentId\":\"p\",\"amount\":1,\"currency\":\"EUR\"}                  | card is missing",
            "{\"paymentId\":\"p\",\"card\":\"SECRET\",\"currency\":\"EUR\"}           | amount is missing",
            "{\"paymentId\":\"p\",\"card\":\"SECRET\",\"amount\":1.5,\"currency\":\"EUR\"} | amount must be a whole number",
            "{\"paymentId\":\"p\",\"card\":\"SECRET\",\"amount\":\"1\",\"currency\":\"EUR\"} | amount must be a whole number",
            "{\"paymentId\":\"p\",\"card\":\"SECRET\",\"amount\":99999999999999999999,\"currency\":\"EUR\"} | fits in 64 bits",
            "{\"paymentId\":\"p\",\"card\":\"SECRET\",\"amount\":1,\"currency\":\"euro\"} | currency must be three capital letters",
            "{\"paymentId\":\"p\",\"card\":\"SECRET\",\"amount\":1,\"currency\":\"EUR\",\"chargeId\":7} | chargeId must be a string",
            "{\"paymentId\":\"p\",\"paymentId\":\"q\",\"card\":\"SECRET\",\"amount\":1,\"currency\":\"EUR\"} | not well-formed JSON",
            "{\"paymentId\":\"p\",\"card\":\"SECRET\",\"amount\":1,\"currency\":\"EUR\"} {}  | not well-formed JSON",
    })
    void aValueThatIsNotAnEventIsRefusedWithAMessageThatNeverQuotesIt(String value, String message) {
        assertThatThrownBy(() -> parse(value))
                .isInstanceOf(PaymentEvent.InvalidEventException.class)
                .hasMessageContaining(message.trim())
                .message().doesNotContain("SECRET");
    }

    @Test
    void anEmptyValueIsRefused() {
        assertThatThrownBy(() -> PaymentEvent.parse(new byte[0], JSON)).hasMessageContaining("no value");
        assertThatThrownBy(() -> PaymentEvent.parse(null, JSON)).hasMessageContaining("no value");
    }

    private static PaymentEvent parse(String json) {
        return PaymentEvent.parse(json.trim().getBytes(StandardCharsets.UTF_8), JSON);
    }
}
