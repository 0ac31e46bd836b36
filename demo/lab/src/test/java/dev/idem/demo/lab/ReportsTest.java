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
        Figures duplicates = new Figures(10, 17, 14, 0, 3, 0, 0, 0, 0, 12.5, 140, Map.of("0", 0, "1", 7, "2", 2, "3+", 1));
        Figures clean = new Figures(10, 15, 10, 0, 0, 0, 0, 0, 0, 11, 99, Map.of("0", 0, "1", 10, "2", 0, "3+", 0));
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

    /** The terminal shows a scenario's cells in two tables (what ran; what was counted): its lines there, joined. */
    private static String linesOf(String table, String id) {
        String joined = String.join("\n", table.lines().filter(l -> l.startsWith(id + " ")).toList());
        assertThat(joined).as("lines of " + id).isNotEmpty();
        return joined;
    }

    @Test
    void theTextTableHasOneRowPerScenarioWithItsCounts() {
        String table = TableRenderer.render(report());

        assertThat(linesOf(table, "new-key-per-retry"))
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
        Figures clean = new Figures(10, 10, 10, 0, 0, 0, 0, 0, 0, 11, 99, Map.of("0", 0, "1", 10, "2", 0, "3+", 0));
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

        assertThat(linesOf(ledgerPart, "ledger-no-inbox"))
                .contains("no inbox", "  10  ", "  13  ", "  3  ", "yes: duplicates ledger entries");
        assertThat(linesOf(ledgerPart, "ledger-inbox"))
                .contains("idem inbox", "yes: 0 lost, 0 duplicated");
        assertThat(TableRenderer.render(report())).as("no messaging row, no second table").doesNotContain("Payment events");
        assertThat(HtmlReport.render(reportWithLedger())).contains("outbox → Kafka → ledger consumer", "duplicates ledger entries");
        JsonNode second = JsonMapper.builder().build().readTree(JsonReport.render(reportWithLedger())).get("scenarios").get(1);
        assertThat(second.get("consumer").asString()).isEqualTo("inbox");
        assertThat(second.get("ledger").get("entries").asInt()).isEqualTo(10);
        assertThat(second.get("ledger").get("consumerKills").asInt()).isEqualTo(2);
    }

    private static LabReport reportWithPatterns() {
        PatternResult upsert = new PatternResult(UpsertRow.ROW, List.of(
                new SideResult(UpsertRow.ROW.sides().get(0), 10, "14 rows", 3, 20),
                new SideResult(UpsertRow.ROW.sides().get(1), 10, "10 rows", 0, 25)), "14 deliveries of 10 lines", 60, null);
        PatternResult lock = new PatternResult(LockRow.ROW, List.of(
                new SideResult(LockRow.ROW.sides().get(0), 10, "31 effects; 40 attempts, 120/s", 10, 300, 120),
                new SideResult(LockRow.ROW.sides().get(1), 10, "10 effects; 40 attempts, 400/s", 0, 100, 400),
                new SideResult(LockRow.ROW.sides().get(2), 10, "10 effects; 40 attempts, 500/s", 1, 80, 500)), null, 500, null);
        PatternResult skipped = PatternResult.skipped(KafkaRows.INSIDE, "needs <nothing>");
        LabSettings settings = new LabSettings(10, 4, 1, 42, null, Path.of("out"), List.of(), List.of(UpsertRow.ROW, LockRow.ROW, KafkaRows.INSIDE));
        return new LabReport(Instant.parse("2025-01-01T00:00:00Z"), 2_000, settings, List.of(), null, List.of(upsert, lock, skipped));
    }

    @Test
    void patternRowsGetALinePerSideWithTheirCountsAndALegend() {
        String table = TableRenderer.render(reportWithPatterns());

        assertThat(table).doesNotContain("charged 2+").contains("The other patterns");
        assertThat(table.lines().filter(l -> l.startsWith("upsert-redelivery")).findFirst().orElseThrow())
                .contains("plain INSERT per delivery", "14 rows", "  10  ", "  3  ", "yes: fails");
        assertThat(table.lines().filter(l -> l.contains("upsert on (order_id, line_id)")).findFirst().orElseThrow())
                .startsWith(" ").contains("10 rows", "yes: holds");
        assertThat(table.lines().filter(l -> l.contains("INSERT into a unique key")).findFirst().orElseThrow())
                .as("a side that should hold and does not").contains("NO, expected: holds");
        assertThat(table.lines().filter(l -> l.startsWith("kafka-eos")).findFirst().orElseThrow()).contains("skipped");
        assertThat(table).contains("upsert-redelivery: items are order lines; wrong: lines without exactly one row. 14 deliveries of 10 lines.")
                .contains("kafka-eos: items are events", "Skipped: needs <nothing>.");
        assertThat(reportWithPatterns().allAsExpected()).as("the lock's unique INSERT side did not hold").isFalse();
    }

    @Test
    void theHtmlHasASectionPerPatternWithItsChartsAndTheJsonItsSides() {
        String html = HtmlReport.render(reportWithPatterns());

        assertThat(html).contains("<h2>" + Group.UPSERT.title() + "</h2>", "<h2>" + HtmlReport.escape(Group.LOCK.title()) + "</h2>",
                "items right and wrong per side", "Cost: attempts per second", "needs &lt;nothing&gt;");
        assertThat(html).doesNotContain(Group.KEYS.title(), "Charges per payment", "needs <nothing>");
        JsonNode json = JsonMapper.builder().build().readTree(JsonReport.render(reportWithPatterns()));
        JsonNode lock = json.get("patterns").get(1);
        assertThat(lock.get("group").asString()).isEqualTo("lock");
        assertThat(lock.get("sides").get(2).get("attemptsPerSecond").asDouble()).isEqualTo(500);
        assertThat(lock.get("sides").get(2).get("asExpected").asBoolean()).isFalse();
        assertThat(json.get("patterns").get(2).get("skipped").asString()).isEqualTo("needs <nothing>");
        assertThat(json.get("allAsExpected").asBoolean()).isFalse();
    }

    @Test
    void theChargesChartHasTheHttpRowsOnlyAndTheLedgerRowsGetTheirOwn() {
        LabReport both = new LabReport(Instant.parse("2025-01-01T00:00:00Z"), 2_000, report().settings(),
                List.of(report().results().get(0), reportWithLedger().results().get(0)), null);
        String html = HtmlReport.render(both);
        String charges = html.substring(html.indexOf("<h3>Charges per payment</h3>"), html.indexOf("<h3>One replayed request</h3>"));
        String ledger = html.substring(html.indexOf("<h3>Ledger entries</h3>"));

        assertThat(charges).contains("new-key-per-retry").doesNotContain("ledger-no-inbox");
        assertThat(ledger).contains("ledger-no-inbox", "entry beyond the first").doesNotContain("new-key-per-retry");
    }
}
