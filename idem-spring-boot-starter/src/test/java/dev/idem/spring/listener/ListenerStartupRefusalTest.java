package dev.idem.spring.listener;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariDataSource;
import dev.idem.spring.listener.app.LedgerApplication;
import dev.idem.testing.RealServices;
import dev.idem.testing.TestDatabase;
import org.assertj.core.api.AbstractThrowableAssert;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.core.NestedExceptionUtils;

/**
 * Settings under which an {@code @IdempotentListener} could not keep its guarantee stop the
 * application while it starts, before any container consumes, with a message naming the method and
 * the setting. No broker is contacted: the checks read the containers' settings.
 */
class ListenerStartupRefusalTest {
    private static TestDatabase db;

    @BeforeAll
    static void database() {
        db = RealServices.sqlite();
    }

    @AfterAll
    static void close() {
        db.close();
    }

    @Test
    void kafkaAutoCommitIsRefused() {
        assertRefused("--ledger.kafka.topic=refused", "--ledger.kafka.batch-topic=refused-batches", "--ledger.kafka.group=refused",
                "--spring.kafka.consumer.enable-auto-commit=true")
                .hasMessageContaining("KafkaLedgerListeners#on")
                .hasMessageContaining("enable.auto.commit=true")
                .hasMessageContaining("spring.kafka.consumer.enable-auto-commit=false");
    }

    @Test
    void rabbitAcknowledgeModeNoneIsRefused() {
        assertRefused("--ledger.rabbit.queue=refused", "--spring.rabbitmq.listener.simple.acknowledge-mode=none")
                .hasMessageContaining("RabbitLedgerListener#on")
                .hasMessageContaining("AcknowledgeMode.NONE");
    }

    @Test
    void aRabbitRetryThatGivesUpBeforeMaxAttemptsIsRefused() {
        assertRefused("--ledger.rabbit.queue=refused", "--spring.rabbitmq.listener.simple.retry.enabled=true",
                "--spring.rabbitmq.listener.simple.retry.max-retries=2", "--idem.inbox.max-attempts=5")
                .hasMessageContaining("RabbitLedgerListener#on")
                .hasMessageContaining("tries a failing message 3 times and then rejects it")
                .hasMessageContaining("idem.inbox.max-attempts (5)")
                .hasMessageContaining("set spring.rabbitmq.listener.simple.retry.max-retries to at least 4")
                .hasMessageContaining("lower idem.inbox.max-attempts to 3");
    }

    @Test
    void aQuorumQueuesDeliveryLimitNotAboveMaxAttemptsIsRefused() {
        assertRefused("--ledger.rabbit.queue=refused-quorum", "--ledger.rabbit.delivery-limit=5", "--idem.inbox.max-attempts=5")
                .hasMessageContaining("RabbitLedgerListener#on")
                .hasMessageContaining("queue 'refused-quorum' has x-delivery-limit 5, not above idem.inbox.max-attempts (5)")
                .hasMessageContaining("an x-delivery-limit of at least 6");
    }

    @Test
    void aListenerWhoseMessageIdCannotBeToldIsRefused() {
        assertRefused("--ledger.payload-only.topic=refused")
                .hasMessageContaining("PayloadOnlyListener#on")
                .hasMessageContaining("java.lang.String argument cannot be determined")
                .hasMessageContaining("messageId");
    }

    private static AbstractThrowableAssert<?, ? extends Throwable> assertRefused(String... arguments) {
        String[] all = new String[arguments.length + 2];
        all[0] = "--spring.datasource.url=" + ((HikariDataSource) db.dataSource()).getJdbcUrl();
        all[1] = "--logging.level.root=OFF";
        System.arraycopy(arguments, 0, all, 2, arguments.length);
        return assertThatThrownBy(() -> new SpringApplicationBuilder(LedgerApplication.class).web(WebApplicationType.NONE).run(all)
                .close())
                .extracting(NestedExceptionUtils::getMostSpecificCause, org.assertj.core.api.InstanceOfAssertFactories.THROWABLE)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageStartingWith("@IdempotentListener on dev.idem.spring.listener.app.");
    }
}
