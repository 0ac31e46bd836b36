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
}
