package dev.idem.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.idem.spring.app.OrdersApplication;
import dev.idem.spring.internal.listener.IdempotentListenerPostProcessor;
import dev.idem.testing.TestDatabase;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.beans.factory.support.DefaultListableBeanFactory;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.kafka.annotation.KafkaListener;

/** What the starter says at start when a setting will not do what the application needs, and what to set. */
@ExtendWith(OutputCaptureExtension.class)
class StartupMessagesTest {

    @Test
    @DisplayName("without a principal (no Spring Security, no credential header) a WARN names every covered route and the property to set")
    void anonymousScopeIsWarnedWithTheRoutesAndTheProperty(CapturedOutput output) {
        start();
        String warning = output.getAll().lines().filter(line -> line.contains("'anonymous' scope")).findFirst().orElse("");
        assertThat(warning).contains("WARN", "POST /orders", "POST /orders/{id}/pay", "POST /refunds",
                "set idem.scope.credential-header", "ScopeResolver bean");
        assertThat(warning).as("routes that are not covered").doesNotContain("GET /orders/{id}", "POST /notes");
    }

    @Test
    @DisplayName("with idem.scope.credential-header set there is no such warning")
    void noWarningWithACredentialHeader(CapturedOutput output) {
        start("--idem.scope.credential-header=X-Api-Key");
        assertThat(output.getAll()).doesNotContain("'anonymous' scope");
    }

    @Test
    @DisplayName("@IdempotentListener on a @KafkaListener without idem-kafka names the missing artifact, not the annotations")
    void aKafkaListenerWithoutIdemKafkaNamesTheArtifact() {
        // The brokers the auto-configuration finds with spring-kafka but without idem-kafka: none for Kafka.
        assertThatThrownBy(() -> postProcessorWithoutBrokers().postProcessAfterInitialization(new KafkaLedger(), "ledger"))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining(KafkaLedger.class.getName() + "#on")
                .hasMessageContaining("dev.idem:idem-kafka")
                .hasMessageNotContaining("needs a @KafkaListener or @RabbitListener");
    }

    @Test
    @DisplayName("@IdempotentListener without a listener annotation still says it needs a @KafkaListener or @RabbitListener")
    void anIdempotentListenerAloneNamesTheAnnotations() {
        assertThatThrownBy(() -> postProcessorWithoutBrokers().postProcessAfterInitialization(new PlainLedger(), "ledger"))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining(PlainLedger.class.getName() + "#on")
                .hasMessageContaining("needs a @KafkaListener or @RabbitListener");
    }

    static class KafkaLedger {
        @KafkaListener(topics = "payments")
        @IdempotentListener
        public void on(String payment) {
        }
    }

    static class PlainLedger {
        @IdempotentListener
        public void on(String payment) {
        }
    }

    private static IdempotentListenerPostProcessor postProcessorWithoutBrokers() {
        DefaultListableBeanFactory beans = new DefaultListableBeanFactory();
        IdempotentListenerPostProcessor processor = new IdempotentListenerPostProcessor(List.of(),
                beans.getBeanProvider(dev.idem.inbox.Inbox.class), beans.getBeanProvider(org.springframework.transaction.PlatformTransactionManager.class),
                beans.getBeanProvider(dev.idem.spring.internal.listener.ListenerTracing.class),
                beans.getBeanProvider(dev.idem.spring.internal.listener.ListenerMeters.class));
        processor.setBeanFactory(beans);
        return processor;
    }

    private static void start(String... extra) {
        try (TestDatabase db = Backend.SQLITE.open()) {
            List<String> arguments = new ArrayList<>(List.of("--server.port=0", "--server.address=127.0.0.1",
                    "--spring.datasource.url=" + Backend.jdbcUrl(db), "--spring.main.banner-mode=off", "--idem.sweeper.enabled=false"));
            arguments.addAll(List.of(extra));
            try (ConfigurableApplicationContext context = SpringApplication.run(OrdersApplication.class, arguments.toArray(String[]::new))) {
                assertThat(context.isActive()).isTrue();
            }
        }
    }
}
