package dev.idem.demo.lab;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** The table, the HTML page and the JSON carry the same counted figures. */
class ReportsTest {
    private static LabReport report() {
        Scenario naive = Scenarios.select(List.of("new-key-per-retry")).get(0);
        Scenario idem = Scenarios.select(List.of("idem-lossy")).get(0);
        Figures duplicates = new Figures(10, 17, 14, 0, 3, 0, 0, 0, 12.5, 140, Map.of("0", 0, "1", 7, "2", 2, "3+", 1));
        Figures clean = new Figures(10, 15, 10, 0, 0, 0, 0, 0, 11, 99, Map.of("0", 0, "1", 10, "2", 0, "3+", 0));
        PaymentRecord record = new PaymentRecord(new Payment("idem-lossy-001", 100, "EUR", "card<&>"));
        Attempt lost = new Attempt(0, 1, "key-1", 5, 20_000, true, 0, "connection reset", false, null);
        Attempt replayed = new Attempt(0, 2, "key-1", 60, 9_000, true, 201, null, true, "{\"id\":\"p\"}");
        record.add(lost);
        record.add(replayed);
        LedgerCharge charge = new LedgerCharge("ch_1", "downstream", 100, "EUR", "card<&>", null, "2025-01-01T00:00:00Z");
        List<ScenarioResult> results = List.of(
                new ScenarioResult(naive, duplicates, true, Map.of("responsesDropped", 4L), 0, 0, 1_000, List.of(), List.of()),
                new ScenarioResult(idem, clean, true, Map.of(), 0, 0, 1_000, List.of(record), List.of(charge)));
        LabSettings settings = new LabSettings(10, 4, 1, 42, null, Path.of("out"), List.of(naive, idem));
        return new LabReport(Instant.parse("2025-01-01T00:00:00Z"), 2_000, settings, results, ReplaySample.find(results).orElseThrow());
    }

    @Test
    void theTextTableHasOneRowPerScenarioWithItsCounts() {
        String table = TableRenderer.render(report());

        assertThat(table.lines().filter(l -> l.startsWith("new-key-per-retry")).findFirst().orElseThrow())
                .contains("new key per retry", "  10  ", "  17  ", "  14  ", "  3  ", "12.5", "140", "yes: duplicates charges");
        assertThat(table).contains("idem-lossy", "yes: 0 lost, 0 duplicated");
    }

    @Test
    void theHtmlPageDrawsTheChartAndTheReplayWithoutExternalAssets() {
        String html = HtmlReport.render(report());

        assertThat(html).contains("<table>", "<svg", "charged twice", "charged 3+ times", "Idempotent-Replayed: true", "ch_1");
        assertThat(html).contains("idem-lossy-001");
        assertThat(html).doesNotContain("<script", "src=", "href=", "card<&>");
        assertThat(HtmlReport.escape("<a href=\"x\">&</a>")).isEqualTo("&lt;a href=&quot;x&quot;&gt;&amp;&lt;/a&gt;");
    }

    @Test
    void theJsonCarriesTheSameFigures() {
        JsonNode json = JsonMapper.builder().build().readTree(JsonReport.render(report()));

        JsonNode first = json.get("scenarios").get(0);
        assertThat(first.get("id").asString()).isEqualTo("new-key-per-retry");
        assertThat(first.get("figures").get("chargedMoreThanOnce").asInt()).isEqualTo(3);
        assertThat(first.get("paymentsByCharges").get("3+").asInt()).isEqualTo(1);
        assertThat(first.get("proxy").get("responsesDropped").asLong()).isEqualTo(4);
        assertThat(json.get("replaySample").get("attempts").size()).isEqualTo(2);
        assertThat(json.get("replaySample").get("charge").get("chargeId").asString()).isEqualTo("ch_1");
        assertThat(json.get("settings").get("seed").asLong()).isEqualTo(42);
    }

    private static LabReport reportWithLedger() {
        Scenario naive = Scenarios.select(List.of("ledger-no-inbox")).get(0);
        Scenario inbox = Scenarios.select(List.of("ledger-inbox")).get(0);
        Figures clean = new Figures(10, 10, 10, 0, 0, 0, 0, 0, 11, 99, Map.of("0", 0, "1", 10, "2", 0, "3+", 0));
        List<ScenarioResult> results = List.of(
                new ScenarioResult(naive, clean, true, Map.of(), 0, 0, 1_000, List.of(), List.of(), new LedgerFigures(10, 13, 3, 0, 2, 3)),
                new ScenarioResult(inbox, clean, true, Map.of(), 0, 0, 1_000, List.of(), List.of(), new LedgerFigures(10, 10, 0, 0, 2, 3)));
        LabSettings settings = new LabSettings(10, 4, 2, 42, null, Path.of("out"), List.of(naive, inbox));
        return new LabReport(Instant.parse("2025-01-01T00:00:00Z"), 2_000, settings, results, null);
    }

    @Test
    void messagingRowsGetASecondTableWithTheLedgerCounts() {
        String table = TableRenderer.render(reportWithLedger());
        String ledgerPart = table.substring(table.indexOf("Payment events"));

        assertThat(ledgerPart.lines().filter(l -> l.startsWith("ledger-no-inbox")).findFirst().orElseThrow())
                .contains("no inbox", "  10  ", "  13  ", "  3  ", "yes: duplicates ledger entries");
        assertThat(ledgerPart.lines().filter(l -> l.startsWith("ledger-inbox")).findFirst().orElseThrow())
                .contains("idem inbox", "yes: 0 lost, 0 duplicated");
        assertThat(TableRenderer.render(report())).as("no messaging row, no second table").doesNotContain("Payment events");
        assertThat(HtmlReport.render(reportWithLedger())).contains("outbox → Kafka → ledger consumer", "duplicates ledger entries");
        JsonNode second = JsonMapper.builder().build().readTree(JsonReport.render(reportWithLedger())).get("scenarios").get(1);
        assertThat(second.get("consumer").asString()).isEqualTo("inbox");
        assertThat(second.get("ledger").get("entries").asInt()).isEqualTo(10);
        assertThat(second.get("ledger").get("consumerKills").asInt()).isEqualTo(2);
    }
}
