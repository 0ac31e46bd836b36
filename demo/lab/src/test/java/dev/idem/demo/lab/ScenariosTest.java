package dev.idem.demo.lab;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

class ScenariosTest {
    @Test
    void theCatalogueHasTheRowsTheLabMustShow() {
        assertThat(Scenarios.all()).extracting(Scenario::id).containsExactly("at-most-once", "retry-no-key", "new-key-per-retry",
                "key-after-effect", "memory-store", "idem-lossy", "idem-sigkill", "idem-gateway-fail", "idem-double-click",
                "expired-no-tombstones", "expired-tombstones", "gave-up-no-completer", "gave-up-completer", "ledger-no-inbox", "ledger-inbox");
        assertThat(Scenarios.all()).filteredOn(s -> s.strategy() == ClientStrategy.IDEMPOTENT && s.variant() == ServerVariant.CORRECT
                        && !s.messaging())
                .extracting(Scenario::fault)
                .containsExactly(Fault.LOSSY_NETWORK, Fault.SIGKILL_MID_REQUEST, Fault.GATEWAY_FAIL_AFTER, Fault.DOUBLE_CLICK,
                        Fault.RETRY_AFTER_EXPIRY);
        assertThat(Fault.DOUBLE_CLICK.minSenders()).isEqualTo(2);
        assertThat(Fault.DOUBLE_CLICK.maxSenders()).isEqualTo(8);
    }

    @Test
    void theMessagingRowsCompareALedgerConsumerWithoutAndWithTheInboxUnderTheSameKill() {
        List<Scenario> messaging = Scenarios.all().stream().filter(Scenario::messaging).toList();

        assertThat(messaging).extracting(Scenario::consumer).containsExactly(ConsumerMode.NO_INBOX, ConsumerMode.INBOX);
        assertThat(messaging).extracting(Scenario::fault).containsOnly(Fault.CONSUMER_KILLED_AFTER_COMMIT);
        assertThat(messaging).extracting(Scenario::expectation)
                .containsExactly(Expectation.DUPLICATES_LEDGER_ENTRIES, Expectation.EXACTLY_ONCE);
        assertThat(ConsumerMode.NO_INBOX.flag()).isEqualTo("no-inbox");
        assertThat(ConsumerMode.INBOX.flag()).isEqualTo("inbox");
    }

    @Test
    void theServiceGetsTheEventFlagsOnlyForMessagingRows() {
        assertThat(PaymentsServiceContract.eventArguments("127.0.0.1:9092", "payment-events-x"))
                .containsExactly("--events.kafka=127.0.0.1:9092", "--events.topic=payment-events-x");
    }

    @Test
    void theLateRetryRowsDifferOnlyInTombstonesAndRunTheServiceAndTheGatewayWithAShortRetention() {
        List<Scenario> late = Scenarios.all().stream().filter(s -> s.fault() == Fault.RETRY_AFTER_EXPIRY).toList();

        assertThat(late).extracting(Scenario::variant).containsExactly(ServerVariant.CORRECT, ServerVariant.TOMBSTONES);
        assertThat(late).extracting(Scenario::expectation).containsExactly(Expectation.DUPLICATES_CHARGES, Expectation.ANSWERS_EXPIRED);
        assertThat(late).extracting(Scenario::strategy).containsOnly(ClientStrategy.IDEMPOTENT);
        assertThat(Fault.RETRY_AFTER_EXPIRY.keyRetention()).isEqualTo(java.time.Duration.ofSeconds(2));
        assertThat(Fault.LOSSY_NETWORK.keyRetention()).as("the other rows keep the programs' own retention").isNull();
        assertThat(PaymentsServiceContract.retentionArgument(java.time.Duration.ofSeconds(2))).isEqualTo("--idem.retention=2000ms");
        assertThat(PaymentsServiceContract.arguments(1, "g", Path.of("/d"), null, ServerVariant.TOMBSTONES))
                .endsWith("--variant=correct", "--idem.tombstones=1h");
        assertThat(ServerVariant.TOMBSTONES.id()).isEqualTo("tombstones");
        assertThat(ServerVariant.KEY_AFTER_EFFECT.id()).isEqualTo(ServerVariant.KEY_AFTER_EFFECT.flag());
    }

    @Test
    void theGiveUpRowsDifferOnlyInTheCompleterAndKillTheServiceAfterTheCharge() {
        List<Scenario> gaveUp = Scenarios.all().stream().filter(s -> s.fault() == Fault.GIVE_UP_AFTER_CHARGE).toList();

        assertThat(gaveUp).extracting(Scenario::variant).containsExactly(ServerVariant.NO_COMPLETER, ServerVariant.COMPLETER);
        assertThat(gaveUp).extracting(Scenario::expectation).containsExactly(Expectation.LEAVES_UNRECORDED, Expectation.COMPLETES_ABANDONED);
        assertThat(gaveUp).extracting(Scenario::strategy).containsOnly(ClientStrategy.IDEMPOTENT);
        assertThat(Fault.GIVE_UP_AFTER_CHARGE.gatewayFaults()).as("the gateway answers late, so kills fall after its charge")
                .isEqualTo(Fault.SIGKILL_MID_REQUEST.gatewayFaults());
        assertThat(PaymentsServiceContract.arguments(1, "g", Path.of("/d"), null, ServerVariant.NO_COMPLETER))
                .endsWith("--variant=correct", "--idem.completer.enabled=false");
        assertThat(PaymentsServiceContract.arguments(1, "g", Path.of("/d"), null, ServerVariant.COMPLETER))
                .endsWith("--variant=correct", "--idem.completer.enabled=true", "--idem.completer.delay=1s",
                        "--idem.completer.poll-interval=500ms");
    }

    @Test
    void aSelectionKeepsTableOrderAndNamesWhatIsUnknown() {
        assertThat(Scenarios.select(List.of("idem-lossy", " at-most-once"))).extracting(Scenario::id)
                .containsExactly("at-most-once", "idem-lossy");
        assertThat(Scenarios.select(List.of())).hasSize(Scenarios.all().size());
        assertThatThrownBy(() -> Scenarios.select(List.of("idem-lossy", "nope")))
                .hasMessageContaining("[nope]").hasMessageContaining("known: at-most-once");
    }

    @Test
    void settingsRefuseWhatCannotRun() {
        Path out = Path.of("target");
        assertThatThrownBy(() -> new LabSettings(0, 4, 1, 1, null, out, Scenarios.all())).hasMessageContaining("payments");
        assertThatThrownBy(() -> new LabSettings(1, 0, 1, 1, null, out, Scenarios.all())).hasMessageContaining("concurrency");
        assertThatThrownBy(() -> new LabSettings(1, 1, 0, 1, null, out, Scenarios.all())).hasMessageContaining("kills");
        assertThatThrownBy(() -> new LabSettings(1, 1, 1, 1, null, out, List.of())).hasMessageContaining("no scenario");
        assertThat(new LabSettings(1, 1, 1, 1, "jdbc:postgresql://h/db?user=u&password=secret", out, Scenarios.all()).databaseLabel())
                .doesNotContain("secret");
    }

    @Test
    void theServiceIsStartedWithTheContractFlags() {
        Payment payment = new Payment("p-1", 1250, "EUR", "lab-x-p-1");

        assertThat(PaymentsServiceContract.arguments(8080, "http://127.0.0.1:8090", Path.of("/tmp/d"), null, ServerVariant.KEY_AFTER_EFFECT))
                .containsExactly("--server.port=8080", "--gateway.url=http://127.0.0.1:8090", "--data-dir=/tmp/d", "--variant=key-after-effect");
        assertThat(PaymentsServiceContract.arguments(1, "g", Path.of("/d"), "jdbc:x", ServerVariant.CORRECT)).contains("--db=jdbc:x");
        assertThat(PaymentsServiceContract.body(payment)).isEqualTo("{\"amount\":1250,\"currency\":\"EUR\",\"card\":\"lab-x-p-1\"}");
    }
}
