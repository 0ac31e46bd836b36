package dev.idem.demo.lab;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * A short lab on real child processes (the card gateway, the fault proxy and the stand-in payments
 * service), real sockets, SQLite files and SIGKILL: the machinery counts what happened, the naive
 * rows show their failure and the idempotent rows show none.
 */
class LabEndToEndTest {
    @TempDir
    Path out;

    @Test
    @Timeout(150)
    void aShortLabCountsLossesAndDuplicatesForTheNaiveRowsAndNoneForIdem() throws Exception {
        List<Scenario> scenarios = Scenarios.select(List.of("at-most-once", "new-key-per-retry", "key-after-effect", "memory-store",
                "idem-lossy", "idem-sigkill", "idem-gateway-fail", "idem-double-click"));
        LabSettings settings = new LabSettings(24, 4, 1, 7, null, out, scenarios);
        ByteArrayOutputStream printed = new ByteArrayOutputStream();

        LabReport report = new Lab(settings, TestComponents.fromClassPath(), new PrintStream(printed, true, StandardCharsets.UTF_8)).run();

        Map<String, ScenarioResult> byId = report.results().stream().collect(Collectors.toMap(r -> r.scenario().id(), Function.identity()));
        assertThat(byId.get("at-most-once").figures().lost()).as("at-most-once loses payments").isPositive();
        assertThat(byId.get("new-key-per-retry").figures().duplicated()).as("a new key per retry duplicates").isPositive();
        assertThat(byId.get("key-after-effect").figures().duplicated()).as("key after the effect duplicates").isPositive();
        assertThat(byId.get("key-after-effect").kills()).isEqualTo(1);
        assertThat(byId.get("memory-store").figures().duplicated()).as("a memory store duplicates across a restart").isPositive();
        for (String id : List.of("idem-lossy", "idem-sigkill", "idem-gateway-fail", "idem-double-click")) {
            Figures f = byId.get(id).figures();
            assertThat(f.lost()).as(id + " lost").isZero();
            assertThat(f.duplicated()).as(id + " duplicated").isZero();
            assertThat(f.unconfirmed()).as(id + " unconfirmed").isZero();
            assertThat(f.differingKeys()).as(id + " differing replies").isZero();
            assertThat(f.charges()).as(id + " one charge per payment").isEqualTo(24);
        }
        assertThat(byId.get("idem-sigkill").kills()).isEqualTo(1);
        assertThat(byId.get("idem-lossy").proxyStats().get("responsesDropped")).isPositive();
        assertThat(byId.get("idem-double-click").figures().requestsSent()).isGreaterThanOrEqualTo(2 * 24);
        assertThat(report.allAsExpected()).isTrue();

        String table = printed.toString(StandardCharsets.UTF_8);
        assertThat(table).contains("scenario", "charged 2+", "idem-double-click");
        JsonNode json = JsonMapper.builder().build().readTree(Files.readString(out.resolve(Lab.JSON_FILE)));
        assertThat(json.get("scenarios").size()).isEqualTo(scenarios.size());
        assertThat(json.get("scenarios").get(0).get("figures").get("lost").asInt()).isEqualTo(byId.get("at-most-once").figures().lost());
        String html = Files.readString(out.resolve(Lab.HTML_FILE));
        assertThat(html).contains("<table>", "<svg", "charged once");
        assertThat(report.sample()).as("a lost response followed by a replay was captured").isNotNull();
        assertThat(html).contains("Idempotent-Replayed: true", report.sample().charge().chargeId());
        assertThat(Files.list(out.resolve("logs"))).isNotEmpty();
    }
}
